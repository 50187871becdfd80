"""Tests of bpe_course.classroom.gradescope."""
