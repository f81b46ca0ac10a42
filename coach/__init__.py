"""射經 Coach: archery form analysis against Wang Ju's 射經."""

__version__ = "0.1.0"
