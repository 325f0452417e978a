#!/bin/sh
# Trains on the data in this directory. Written by `python3 -m aeb_verl.prepare`.
# Arguments are Hydra overrides, e.g. trainer.logger='["console","wandb"]' trainer.n_gpus_per_node=4
# Needs on every Ray worker: aeb_verl importable (pip install integrations/verl; for a local Ray
# cluster the PYTHONPATH below is enough) and $$AEB_SERVER_TOKEN when the server wants a token.
set -eu
${change_directory}
PYTHONPATH=${package_parent}$${PYTHONPATH:+:$$PYTHONPATH}
export PYTHONPATH
exec python3 -m verl.trainer.main_ppo --config-path=${config_dir} --config-name=trainer "$$@"
