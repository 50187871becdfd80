"""Grading: `python -m bpe_course grade`, which scores submitted worksheets on hidden cases.

Outside the sandbox, in the grader's process:

- `command`: the command line, the run over a class, one notebook's result
- `submissions`: the notebooks under a folder, read safely (regular files the folder
  holds, within a size cap) and identified as worksheets
- `run_notebook`: one notebook run for the grader: the job it is given, its answers
  read back, the separate speed check
- `bubblewrap`: the sandbox's command line (bubblewrap), and whether it works here
- `container`: the container the grader runs in as the sandbox, where bubblewrap cannot
  work (`--sandbox container`, only in a container): users of its own, limits, no
  network, files out of reach (Landlock, locked files)
- `kernel_limits`: a cgroup per sandbox, in which the kernel holds memory (shared memory,
  memfd and tmpfs included), processes and CPU, counts CPU time and kills all at once
- `watch`: the time limit, the files on disk, and (without a cgroup) memory and threads,
  watched from outside
- `scoring`, `report`: answers compared with the references; the JSON and CSV report
- `class_mistakes`: each exercise's kinds of mistake, from the checkers' diagnoses, and
  the page of what the class got wrong (per exercise, how many learners made each kind)

Inside the sandbox: `inside_sandbox`, a trusted driver that never runs the learner's
code; `learner_process`, the process it forks, which runs the notebook's cells and then
every case; `moved_modules`, the old names of modules a later release moved; and
`sandbox_shims/`, what `import tiktoken` finds there.
"""
