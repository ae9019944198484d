"""The value models shipped for the presets (package data: ``value-PRESET.npz``), read by
``shanghai_sim.learning.value_model``; docs/learning.md is their card."""
