"""Tests of bpe_course.classroom.grading."""
