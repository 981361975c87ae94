"""NeuroGym 2.3.1 style: listing tasks, tags and wrappers (demo notebook's ``info`` calls).

Written as a 2.3.1 user would; tests/compat/new_info.py is the same computation in 3.0's API
and must print the same JSON line. 2.3.1's listings cover its native tasks only, 3.0's every
installed task, so the comparison is on what both list: the tasks with a tag, their tags, one
task's and one wrapper's description.
"""

import contextlib
import io
import json

import neurogym as ngym
from neurogym import info
from neurogym.envs.registration import all_tags


def printed(function, *args):
    """The lines ``function(*args)`` prints."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        function(*args)
    return buffer.getvalue().splitlines()


timing = printed(info.show_all_tasks, "timing")[1:]
tags = printed(info.show_all_tags)[1:]
wrappers = [w.removesuffix("-v0") for w in printed(info.show_all_wrappers)[1:]]
gonogo = printed(info.show_info, "GoNogo-v0")
env = ngym.make("GoNogo-v0")
monitor = printed(info.show_info, "Monitor-v0")


def tags_of(lines):
    (line,) = [line for line in lines if line.startswith("Tags:")]
    return sorted(line.removeprefix("Tags:").strip().rstrip(".").split(", "))


print(
    json.dumps(
        {
            "timing_tasks": timing,
            "timing_tasks_tags": [tags_of(printed(info.show_info, task)) for task in timing],
            "listed_tags_are_known": set(tags) <= set(all_tags()),
            "monitor_listed": "Monitor" in wrappers,
            "gonogo_tags": tags_of(gonogo),
            "gonogo_paper": gonogo[gonogo.index("Reference paper") + 1],
            "gonogo_rewards": [line for line in gonogo if line.startswith("correct :")],
            "monitor_doc": monitor[1],
        },
        sort_keys=True,
    )
)
