"""Skill leaves and their controllers, arm backends and the skill registry (DESIGN §4)."""
