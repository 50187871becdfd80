"""Tests of bpe_course.classroom.authoring."""
