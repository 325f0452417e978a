"""AEB's simulated users as a verl 0.9 training environment, over ``aeb serve``.

- ``aeb_verl.agent_loop.AebAgentLoop``: the verl agent loop (imports verl);
- ``aeb_verl.reward``: the reward functions (``reward.custom_reward_function.path``);
- ``aeb_verl.client``: the HTTP client, usable from any trainer (standard library only);
- ``python3 -m aeb_verl.prepare``: writes a ready-to-launch training directory (standard library
  only; it reads the version of the verl it targets without importing it).

This module imports nothing, so the client and the command work where verl is not installed.
"""

__version__ = "0.3.0"
