"""smrstore's teuthology tasks (qa/tasks, as in Ceph's qa/): each module's `task(ctx, config)`
is what a job's `tasks:` entry of the same name runs (teuthology.run_tasks imports
`tasks.<name>`). They run on one host, the local machine, through qa/runner/run.sh."""
