"""Yams impossible's advisor and computer player: each turn solved exactly against box
values calibrated by self-play (``calibrate``)."""
