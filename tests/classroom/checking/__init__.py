"""Tests of bpe_course.classroom.checking."""
