"""Cameroun's advisor and computer player: each turn solved exactly against values of the
shared columns that count the other players, aiming at winning."""
