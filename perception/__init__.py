"""Perception: cameras, point clouds, segmentation, labelling → WorldState."""
