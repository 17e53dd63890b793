"""Skill leaves and their controllers, arm backends and the skill registry."""
