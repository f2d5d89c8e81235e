"""Tests of reviews.report."""
