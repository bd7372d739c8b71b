"""Sweeps: a base scenario, parameter axes and replications, run in parallel into a results
store that survives interruption.

>>> plan = congsim.sweep.load_plan("plans/buffers.toml")       # doctest: +SKIP
>>> outcome = congsim.sweep.run_sweep(plan, "sweeps/buffers")  # doctest: +SKIP
>>> outcome.statistics()                                       # mean, std, 95 % CI per metric
"""

from congsim.sweep.dask_address import SchedulerError
from congsim.sweep.plan import Plan, PlanError, RunSpec, load_plan, loads_plan, plan_of
from congsim.sweep.runner import SweepOutcome, run_sweep
from congsim.sweep.stats import confidence_half_width, student_t_quantile, summarize

__all__ = [
    "Plan",
    "PlanError",
    "RunSpec",
    "SchedulerError",
    "SweepOutcome",
    "confidence_half_width",
    "load_plan",
    "loads_plan",
    "plan_of",
    "run_sweep",
    "student_t_quantile",
    "summarize",
]
