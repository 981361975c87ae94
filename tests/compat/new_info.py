"""NeuroGym 3.0 API: the same computation as legacy_info.py (same JSON line)."""

import inspect
import json

import neurogym

timing = [spec.id.removeprefix("neurogym/") for spec in neurogym.tasks(tag="timing")]
gonogo = neurogym.spec("neurogym/GoNogo-v0")
env = neurogym.make("neurogym/GoNogo-v0")
wrappers = [wrapper.name for wrapper in neurogym.wrapper_specs()]
monitor = next(w for w in neurogym.wrapper_specs() if w.name == "Monitor").load()

print(
    json.dumps(
        {
            "timing_tasks": timing,
            "timing_tasks_tags": [
                sorted(neurogym.spec(f"neurogym/{task}").tags) for task in timing
            ],
            "listed_tags_are_known": set(neurogym.tags())
            <= {t for s in neurogym.tasks() for t in s.tags},
            "monitor_listed": "Monitor" in wrappers,
            "gonogo_tags": sorted(gonogo.tags),
            "gonogo_paper": f"[{gonogo.paper_name}]({gonogo.paper_link})",
            "gonogo_rewards": [f"correct : {env.rewards['correct']}"],
            "monitor_doc": inspect.getdoc(monitor).split("\n\n")[0],
        },
        sort_keys=True,
    )
)
