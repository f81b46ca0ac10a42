"""Synthetic archer: renders a shaded 3D mannequin shooting a bow, with exact ground truth.

The clips exist so the analysis can be tested against known answers: every joint position, phase
boundary and injected fault is written to a ``*.truth.json`` sidecar next to the MP4.
Entry points: ``coach.synth.generate.generate_clip`` and the scenarios in ``coach.synth.scenarios``.
"""
