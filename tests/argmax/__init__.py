"""Tests of reviews.argmax."""
