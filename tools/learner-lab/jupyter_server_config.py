"""The learner's JupyterLab (`make lab` puts this folder on JUPYTER_CONFIG_PATH).

nbgrader is installed for the tests and for instructors; here its server extensions are
switched off (and its JupyterLab extension, in labconfig/page_config.json), so a learner sees
no nbgrader menu, Validate button or Create Assignment panel, and the log has no nbgrader
warnings. Only extensions that are installed are named, so an environment without nbgrader
starts without warnings too. JupyterLab's extension manager is read-only: the course runs
offline and needs no extensions from PyPI. labconfig/page_config.json also switches off
JupyterLab's announcements plugin (no "get notified about official Jupyter news?" popup).
"""

import importlib.util
import os

c = get_config()  # noqa: F821 (defined by Jupyter when it reads this file)

if importlib.util.find_spec("nbgrader") is not None:
    c.ServerApp.jpserver_extensions = {
        f"nbgrader.server_extensions.{name}": False
        for name in ("assignment_list", "course_list", "formgrader", "validate_assignment")
    }
c.LabApp.extension_manager = "readonly"

# ipykernel warns on every kernel start that a kernel on TCP is unencrypted; local sockets
# (posix only) cannot be reached from the network at all, so there is nothing to warn about.
if os.name == "posix":
    c.KernelManager.transport = "ipc"


# Every notebook is stored with ipykernel's kernelspec, which the lab's kernel has too, so
# JupyterLab finds nothing to change there. It does record the kernel's language_info, whose
# "version" is the learner's exact Python (3.12.7, ...), which the stored notebooks leave out
# so that they are the same on every Python: drop it again on saving, so that saving a notebook
# one has not edited writes the same bytes and `git pull` meets no conflict.
def _drop_python_version(model, **kwargs):
    if model.get("type") == "notebook" and isinstance(model.get("content"), dict):
        model["content"].get("metadata", {}).get("language_info", {}).pop("version", None)


c.ContentsManager.pre_save_hook = _drop_python_version
