"""Tests of bpe_course.classroom.worksheets."""
