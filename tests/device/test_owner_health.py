"""The health page's readings: a Pi's throttling flags, its temperature, and a machine that
is not a Pi saying so."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from device.health import board, cpu_temperature, disk, memory, parse_throttled, pi_model, throttled


def test_throttled_flags_now_and_since_boot() -> None:
    healthy = parse_throttled("throttled=0x0\n")
    assert healthy["ok"] and not any(healthy["now"].values())
    weak = parse_throttled("throttled=0x50005\n")  # what a Pi on a phone charger says
    assert weak["now"]["under_voltage"] and weak["now"]["throttled"]
    assert not weak["now"]["frequency_capped"]
    assert weak["since_boot"]["under_voltage"] and weak["since_boot"]["throttled"]
    assert not weak["ok"]
    past = parse_throttled("throttled=0x10000")
    assert not past["now"]["under_voltage"] and past["since_boot"]["under_voltage"]
    with pytest.raises(ValueError, match="not what vcgencmd"):
        parse_throttled("VCHI initialization failed")


def fake_pi(root: Path, temp_millis: str = "48312") -> None:
    """A Pi's device tree and thermal zone, as the kernel lays them out."""
    (root / "proc/device-tree").mkdir(parents=True)
    (root / "proc/device-tree/model").write_bytes(b"Raspberry Pi 4 Model B Rev 1.5\x00")
    zone = root / "sys/class/thermal/thermal_zone0"
    zone.mkdir(parents=True)
    (zone / "type").write_text("cpu-thermal\n")
    (zone / "temp").write_text(temp_millis + "\n")


def test_a_pi_is_named_and_its_cpu_temperature_read(tmp_path: Path) -> None:
    fake_pi(tmp_path)
    other = tmp_path / "sys/class/thermal/thermal_zone1"
    other.mkdir()
    (other / "type").write_text("gpu-thermal\n")
    (other / "temp").write_text("61000\n")
    assert pi_model(tmp_path) == "Raspberry Pi 4 Model B Rev 1.5"
    assert cpu_temperature(tmp_path) == pytest.approx(48.312)  # the CPU's zone, not the GPU's


def test_vcgencmd_is_asked_on_a_pi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_pi(tmp_path)
    tool = tmp_path / "bin" / "vcgencmd"  # the firmware's tool, as it answers
    tool.parent.mkdir()
    tool.write_text('#!/bin/sh\n[ "$1" = get_throttled ] && echo throttled=0x50000\n')
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tool.parent}{os.pathsep}{os.environ['PATH']}")
    seen = board(tmp_path)
    assert seen["pi"] and seen["model"].startswith("Raspberry Pi 4")
    assert seen["throttled"]["since_boot"]["under_voltage"]
    assert not seen["throttled"]["now"]["under_voltage"]


def test_this_machine_is_not_a_pi(tmp_path: Path) -> None:
    assert pi_model(tmp_path) is None and cpu_temperature(tmp_path) is None
    seen = board(tmp_path)
    assert seen == {"pi": False, "model": None, "temperature_c": None, "throttled": None}
    assert throttled("no-such-vcgencmd-here") is None


def test_disk_and_memory_are_this_machines(tmp_path: Path) -> None:
    free = disk(tmp_path / "not" / "made" / "yet")
    assert free["folder"] == str(tmp_path)
    assert 0 < free["free_mb"] <= free["total_mb"]
    mine = memory()
    assert 0 < mine["available_mb"] <= mine["total_mb"]
    assert mine["process_mb"] > 10  # this Python with numpy loaded
