"""Sudoku Lab's Qt desktop lab (PySide6 + pyqtgraph), built on ``sudoku_lab``."""
