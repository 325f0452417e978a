#!/bin/sh
# Trains on the data in this directory. Written by `python3 -m aeb_verl.prepare`.
# Arguments are Hydra overrides, e.g. trainer.logger='["console","wandb"]' trainer.n_gpus_per_node=4
# The interpreter is the one that had verl ${verl_version} when this was written; set
# $$AEB_VERL_PYTHON to use another. Needs on every Ray worker: aeb_verl importable (pip install
# integrations/verl; for a local Ray cluster the PYTHONPATH below is enough) and $$AEB_SERVER_TOKEN
# when the server wants a token.
set -eu
${change_directory}
PYTHONPATH=${python_path}$${PYTHONPATH:+:$$PYTHONPATH}
export PYTHONPATH
PYTHON=$${AEB_VERL_PYTHON:-}
[ -n "$$PYTHON" ] || PYTHON=${python}
exec "$$PYTHON" -m verl.trainer.main_ppo --config-path=${config_dir} --config-name=trainer "$$@"
