"""The classroom's tests, a package so that pytest imports their conftest as
`classroom.conftest`: two files imported by the one name `conftest` clash when
`--doctest-modules` collects them (pytest 9)."""
