"""Benchboard's name for Inspect AI: ``inspect eval benchboard/NAME``.

The code lives in ``bot``, ``scoring`` and ``storage``; this package holds only
:mod:`benchboard.tasks`, the module Inspect's entry point loads.
"""
