"""Solitaire coach: watches a real Klondike game through a camera and advises the next move.

Layout (the line between the pure core and the I/O is the folder boundary):

* ``core/``    pure game logic: cards, rules, state, moves, text formats, tracker, advisors.
               Imports nothing from ``vision``, ``capture`` or ``app`` and does no I/O.
* ``vision/``  frame -> detections -> 12-slot snapshot (ONNX model); never decides rules.
* ``capture/`` cameras, video files, image folders, serial trigger, calibration.
* ``app/``     command line, coach loops, journal, simulation, files.
"""

__version__ = "0.1.0"
