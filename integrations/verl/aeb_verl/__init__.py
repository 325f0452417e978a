"""AEB's simulated users as a verl training environment, over ``aeb serve`` (standard library only).

- ``aeb_verl.interaction.AebInteraction``: the verl ``BaseInteraction`` (imports verl);
- ``aeb_verl.reward``: the reward functions (``custom_reward_function.path``);
- ``aeb_verl.client``: the HTTP client, usable from any trainer;
- ``python3 -m aeb_verl.prepare``: writes a ready-to-launch training directory.

This module imports nothing, so the client and the command work where verl is not installed.
"""

__version__ = "0.2.0"
