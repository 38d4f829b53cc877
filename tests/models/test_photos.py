"""Crops from YOLO labels land on the labelled pixels; splits and leakage are counted right."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from models.common import photos
from models.common.photos import Box, crop_die, parse_labels, source_name


def test_source_name_is_the_part_before_rf() -> None:
    assert source_name("00012_jpg.rf.1c44a4bfd6.jpg") == "00012_jpg"
    assert source_name("plain.jpg") == "plain"


def test_parse_labels_reads_yolo_lines_and_refuses_bad_ones() -> None:
    boxes = parse_labels("5 0.25 0.5 0.1 0.2\n\n0 0.5 0.5 0.3 0.3")
    assert boxes == [Box(5, 0.25, 0.5, 0.1, 0.2), Box(0, 0.5, 0.5, 0.3, 0.3)]
    with pytest.raises(ValueError, match="line 1"):
        parse_labels("6 0.5 0.5 0.1 0.1")
    with pytest.raises(ValueError, match="line 2"):
        parse_labels("1 0.5 0.5 0.1 0.1\n1 0.5 0.5 0.1")


def test_crop_covers_exactly_the_labelled_square() -> None:
    # a bright 40x40 square at x 60..99, y 20..59 of a 200x100 image, dark elsewhere
    image = np.full((100, 200), 10, np.uint8)
    image[20:60, 60:100] = 250
    box = Box(0, cx=80 / 200, cy=40 / 100, w=40 / 200, h=40 / 100)
    tight = crop_die(image, box, size=64, margin=0.0)
    assert tight.shape == (64, 64)
    assert tight.min() == 250  # nothing of the background: the crop is the square
    loose = crop_die(image, box, size=64, margin=0.25)  # 60 px window, 10 px of border each side
    assert loose[32, 32] == 250
    assert loose[:8].max() == 10 and loose[-8:].max() == 10  # background band above and below
    assert loose[:, :8].max() == 10 and loose[:, -8:].max() == 10


def test_crop_is_square_around_the_longer_side_and_marks_stay_in_place() -> None:
    # a 20 wide x 40 tall box: the crop is 40x40, and a mark in its top-left stays top-left
    image = np.zeros((100, 100), np.uint8)
    image[30:70, 40:60] = 200
    image[30:34, 40:44] = 255
    crop = crop_die(image, Box(0, 0.5, 0.5, 0.2, 0.4), size=40, margin=0.0)
    assert crop[0:4, 10:14].min() == 255  # the mark: 10 px right of the crop's left edge
    assert crop[:, :10].max() == 0 and crop[:, 30:].max() == 0  # the square is wider
    assert crop[20, 20] == 200


def test_crop_past_the_edge_repeats_the_edge() -> None:
    image = np.full((50, 50), 100, np.uint8)
    crop = crop_die(image, Box(0, 0.0, 0.0, 0.4, 0.4), size=64, margin=0.1)
    assert crop.shape == (64, 64)
    assert (crop == 100).all()


def test_colour_images_are_cropped_grey() -> None:
    image = np.zeros((40, 40, 3), np.uint8)
    image[..., 2] = 255  # pure red in BGR
    crop = crop_die(image, Box(0, 0.5, 0.5, 0.5, 0.5), size=16)
    assert crop.shape == (16, 16) and crop.dtype == np.uint8
    assert abs(int(crop[8, 8]) - 76) <= 1  # OpenCV's luma of pure red


def test_load_splits_reads_every_die_with_its_face_and_source(synthetic_rune55: Path) -> None:
    splits = photos.load_splits(synthetic_rune55)
    assert {k: len(v) for k, v in splits.items()} == {"train": 24, "valid": 1, "test": 3}
    test = splits["test"]
    assert sorted(test.labels.tolist()) == [1, 4, 5]  # faces 2, 5, 6
    assert set(test.sources.tolist()) == {"s5_jpg", "t1_jpg"}
    assert test.images.shape == (3, 64, 64) and test.images.dtype == np.uint8
    # the cache gives back the same arrays
    again = photos.load_splits(synthetic_rune55)
    assert np.array_equal(again["test"].images, test.images)
    assert list((photos.CACHE_DIR).glob("*.npz"))


def test_leakage_counts_sources_in_more_than_one_split(synthetic_rune55: Path) -> None:
    splits = photos.load_splits(synthetic_rune55, cache=False)
    report = photos.leakage(splits)
    assert report["sources"] == {"train": 6, "valid": 1, "test": 2}
    assert report["in_more_than_one_split"] == 1
    assert report["pairs"] == {"train&valid": 0, "train&test": 1, "valid&test": 0}
    unseen = photos.unseen_mask(splits["test"], splits["train"])
    assert splits["test"].sources[unseen].tolist() == ["t1_jpg", "t1_jpg"]


def test_pips_of_a_drawn_die_survive_the_crop(synthetic_rune55: Path) -> None:
    # face 1 (one central pip): the crop's centre is dark, its face around it bright
    crops = photos.load_splits(synthetic_rune55, cache=False)["train"]
    one = crops.images[crops.labels == 0][0]
    assert one[32, 32] < 80 and one[32, 14] > 180
