"""The handle generated checker code gets for each object of the scene (bound to its name)."""

from __future__ import annotations

from dataclasses import dataclass

from owl_bt.state import ObjectState, Pose


@dataclass(frozen=True)
class ObjectHandle:
    """What checker code sees for an object: `.name`, `.category`, `.pose` (.x … .yaw), `.size`."""

    name: str
    category: str
    pose: Pose
    size: tuple[float, float, float]

    @classmethod
    def of(cls, obj: ObjectState) -> ObjectHandle:
        return cls(obj.name, obj.category, obj.pose, obj.size)

    def at(self, pose: Pose) -> ObjectHandle:
        return ObjectHandle(self.name, self.category, pose, self.size)
