"""Perception: cameras, point clouds, segmentation, labelling → WorldState (DESIGN §1)."""
