"""Run data-science benchmark problems across a matrix of library versions and report API drift."""

__version__ = "0.2.0"
