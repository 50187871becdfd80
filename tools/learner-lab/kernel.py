"""The learner lab's Python kernel: ipykernel's own, under ipykernel's own names.

    python tools/learner-lab/kernel.py install     # what `make lab` runs (into sys.prefix)
    python tools/learner-lab/kernel.py install PREFIX   # into PREFIX/share/jupyter (tests)

JupyterLab writes the kernel's `language_info` into a notebook as soon as the kernel starts,
and marks the notebook as edited if it differs from the stored one. The stored notebooks leave
out the one field that differs from machine to machine, the exact Python version ("3.12.7"), so
that they are the same on every Python. This kernel leaves it out too: opening a notebook
then changes nothing in it, closing one you have only read asks nothing, and saving it writes
the same bytes (tools/learner-lab/jupyter_server_config.py drops the version on saving too,
for kernels started elsewhere). Everything else is ipykernel, unchanged.
"""

import json
import os
import sys

NAME, DISPLAY_NAME = "python3", "Python 3 (ipykernel)"    # = course.KERNELSPEC


def install(prefix: str = sys.prefix) -> None:
    """Register this kernel as `python3` in this environment (sys.prefix), as `python -m
    ipykernel install --sys-prefix` would, with this file in place of ipykernel_launcher."""
    from ipykernel.kernelspec import install as ipykernel_install
    folder = ipykernel_install(kernel_name=NAME, display_name=DISPLAY_NAME, prefix=prefix)
    spec_file = os.path.join(folder, "kernel.json")
    with open(spec_file, encoding="utf-8") as f:
        spec = json.load(f)
    at = spec["argv"].index("-m")
    spec["argv"][at:at + 2] = [os.path.abspath(__file__)]
    with open(spec_file, "w", encoding="utf-8") as f:
        json.dump(spec, f, indent=1)


def launch() -> None:
    del sys.path[0]                  # this file's folder: never import the learner's code from it
    from ipykernel.ipkernel import IPythonKernel
    IPythonKernel.language_info = {key: value for key, value in IPythonKernel.language_info.items()
                                   if key != "version"}
    from ipykernel.kernelapp import launch_new_instance
    launch_new_instance()


if __name__ == "__main__":
    if sys.argv[1:2] == ["install"] and len(sys.argv) <= 3:
        install(*sys.argv[2:])
    else:
        launch()
