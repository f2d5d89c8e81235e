"""Tests of reviews.rounded."""
