"""Inputs of held-out batch 22's hand specs that random values cannot give (called with the spec's sizes)."""

import numpy as np

VOXEL = 0.01  # the TSDF spec's voxel side in metres (its `voxel` argument)


def camera_pose(sizes):
    """The TSDF spec's world-to-camera pose, 3 x 4 row-major: the volume's centre 0.5 m beyond its near half
    on the optical axis, turned 15 degrees about y and 10 about x (a rotation that is not its transpose, so
    a kernel reading the pose by columns projects elsewhere); about a third of the voxels project outside
    the image."""
    half = np.array([sizes["vx"], sizes["vy"], sizes["vz"]], dtype=np.float64) * VOXEL / 2
    a, b = np.radians(15.0), np.radians(10.0)
    ry = np.array([[np.cos(a), 0, np.sin(a)], [0, 1, 0], [-np.sin(a), 0, np.cos(a)]])
    rx = np.array([[1, 0, 0], [0, np.cos(b), -np.sin(b)], [0, np.sin(b), np.cos(b)]])
    r = ry @ rx
    t = -r @ half + np.array([0.0, 0.0, half[2] + 0.5])
    return np.column_stack([r, t]).astype(np.float32).reshape(-1)


def unique_rows(sizes):
    """The Adagrad spec's updated rows: nupd distinct table rows in random order (a row named twice would
    race)."""
    rng = np.random.default_rng(221)
    return rng.permutation(sizes["nrows"])[: sizes["nupd"]].astype(np.int32)
