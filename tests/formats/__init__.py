"""Tests of reviews.formats."""
