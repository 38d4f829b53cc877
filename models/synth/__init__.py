"""Synthetic photos of dice in a felt tray, with exact labels (numpy + OpenCV only).

Used for unit tests, CI, training crops, the appliance's simulated tray and the vision
evaluation. A scene is drawn top-down (the dice can also be seen at a slant, as in a phone's
photo: ``Tray.slant``): felt with grain, the tray wall in perspective, uneven
light and sensor noise; each die a 3-D solid (a rounded cube, or a pentagonal trapezohedron)
shaded per pixel with bevels, specular highlights and a contact shadow, its marks warped onto
its faces; transparent dice show the felt and shadow through them.
"""

from models.synth.background import empty_tray
from models.synth.core import VERSION, DieSpec, Pose, Scene, SceneDie, Tray
from models.synth.draw import render
from models.synth.layout import place, random_scene, random_specs, random_tray

__all__ = [
    "VERSION",
    "DieSpec",
    "Pose",
    "Scene",
    "SceneDie",
    "Tray",
    "empty_tray",
    "place",
    "random_scene",
    "random_specs",
    "random_tray",
    "render",
]
