"""Tests of reviews.softmax."""
