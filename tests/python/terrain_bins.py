"""The terrain bins of src/report (report.h TerrainBins), written again with numpy for the
tests that check `ecobake diff` and `ecobake report` against it: the nearest terrain sample's
height in ten bands of the world's range, the slope by central differences (one-sided at the
edges) in 0-5-10-20-30-45-90 degrees, and the way the ground faces downhill (N, NE, ..., NW;
north = -z) where the slope is at least 5 degrees, 8 ("flat") below."""
import numpy as np


def bins_at(heights, cell, lo, hi, i, j):
    """(elevation, slope, aspect) bin arrays of terrain samples (i, j) (integer arrays)."""
    h, w = heights.shape
    elevation = np.clip(((heights[j, i] - lo) / (hi - lo) * 10).astype(int), 0, 9)
    i0, i1 = np.maximum(i - 1, 0), np.minimum(i + 1, w - 1)
    j0, j1 = np.maximum(j - 1, 0), np.minimum(j + 1, h - 1)
    dx = (heights[j, i1] - heights[j, i0]) / ((i1 - i0) * cell)
    dz = (heights[j1, i] - heights[j0, i]) / ((j1 - j0) * cell)
    slope = np.degrees(np.arctan(np.hypot(dx, dz)))
    slope_bin = np.searchsorted([5, 10, 20, 30, 45], slope, side="right")
    facing = np.degrees(np.arctan2(-dx, dz)) % 360  # compass degrees from north (-z) toward east (+x)
    aspect = np.where(slope < 5, 8, np.floor(facing / 45 + 0.5).astype(int) % 8)
    return elevation, slope_bin, aspect


def bins_of_points(heights, cell, lo, hi, x, z):
    """Bins of world points (x, z): their nearest terrain samples'."""
    h, w = heights.shape
    i = np.clip(np.floor(x / cell + 0.5).astype(int), 0, w - 1)
    j = np.clip(np.floor(z / cell + 0.5).astype(int), 0, h - 1)
    return bins_at(heights, cell, lo, hi, i, j)
