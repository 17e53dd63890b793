"""Robot models written from published kinematics (URDF generators)."""
