"""Task and motion planning: symbolic model, PDDL export and planner call, samplers, refinement."""
