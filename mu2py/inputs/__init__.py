"""Inputs as choice sequences: sources that decode them (Hypothesis strategies), havoc, replay."""
