"""AEB's simulated user as a verl agent loop (verl 0.9: ``verl.experimental.agent_loop``).

verl removed its interaction system in 0.8; an environment is now an agent loop: a class whose
``run`` plays one dataset row and returns the token sequence to train on. ``AebAgentLoop`` plays
one dialogue with ``aeb serve`` per row:

1. it resets an episode (``POST /v1/reset``, the row's ``extra_info.aeb_episode``: scenario, seed,
   repeat, preset, reward mode) on the worker's next replica, and checks that the row's last
   message is the scenario's opening as the server has it;
2. it renders the row's messages with the chat template and lets the policy generate through
   verl's server manager (``server_manager.generate``, the same sticky request id every turn);
3. it sends what the user sees of the reply (``aeb_verl.visible_reply``: the benchmark's own think
   split; cut to the server's 20,000-character limit) with the visible conversation
   (``POST /v1/step``), and gets the user's answer and the turn's reward;
4. until the server says ``done``, it appends the user's message to the token sequence exactly as
   the chat template renders it (verl's turn separator, then the user turn and the next
   assistant header) with loss mask 0, and goes back to 2.

It returns ``AgentLoopOutput`` with the reply tokens at mask 1 and, in ``extra_fields`` (which the
reward loop merges into ``extra_info``): ``turn_scores`` (the server's reward for each judged
turn), ``aeb_error`` (why the environment failed, with ``on_error: mark``), ``aeb_budget_cut``
(the token budget ended the dialogue), ``aeb_end_reason``, ``aeb_emotion``, ``aeb_episode_id`` and
``aeb_assistant_turns``. ``aeb_verl.reward`` turns them into the score.

Two recipes differ in what the policy sees and what is trained (``aeb_verl.settings``):

- ``past_think: keep``, ``samples: dialogue`` (AEB's): one token sequence per dialogue, the
  policy's earlier replies in its context as generated, think blocks included;
- ``past_think: strip``, ``samples: turn`` (RLVER's): before each reply the context is rendered
  afresh from the visible conversation (earlier think blocks gone, as RLVER's rollout keeps only
  the text after ``</think>``), and every assistant turn is its own sample (its context as the
  prompt, the reply as the response), each paid the dialogue's reward at its last token. verl 0.9's
  default V1 trainer (``AgentLoopWorkerTQ``) takes a list of outputs from ``run`` and gives every
  one the reward of the last; the legacy trainer (``trainer.use_v1=false``) takes one output, so
  the loop refuses that combination when verl builds it.

  With ``past_think: strip`` and ``samples: dialogue``, a sample must still be one sequence the
  policy saw: when a reply had text the user did not see, the context is rendered afresh and the
  sample restarts from there, so it holds the turns since the last stripped think block.

The dialogue ends when the server says ``done`` (success, collapse, the user leaving, or its turn
limit) or, before that, when the next turn would not fit ``rollout.response_length`` (a dialogue
sample) or ``rollout.prompt_length`` (a turn sample's context): then ``aeb_budget_cut`` is set
(the reward function reports it as ``aeb_truncated``).
"""

from __future__ import annotations

import logging
import time
from typing import Any, Mapping, Optional
from uuid import uuid4

from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopOutput
from verl.utils.tokenizer import normalize_token_ids
from verl.utils.tokenizer.chat_template import apply_chat_template

from .client import AebEnvironmentError
from .dataset import AGENT_LOOP, EPISODE_KEY
from .environment import Episode, process_environment
from .settings import LoopSettings
from .visible_reply import trim, visible_reply

logger = logging.getLogger(__name__)

#: The loop's name. It is registered by the registration file, never by verl's ``@register``: the
#: decorator runs when verl imports this module to instantiate the first sample, and would replace
#: the file's entry, environment settings and all, with a bare one.
AGENT_NAME = AGENT_LOOP


class AebAgentLoop(AgentLoopBase):
    """One dialogue with AEB's simulated user per dataset row (see the module's documentation)."""

    def __init__(self, *args: Any, name: Optional[str] = None, environment: Any = None, past_think: str = "keep", samples: str = "dialogue", max_turn_tokens: Optional[int] = None, tools: Any = None, **kwargs: Any):
        # ``name`` and ``tools`` are what verl passes every loop (the registration name, the
        # tool list); the AEB loop uses no tools.
        super().__init__(*args, **kwargs)
        config: dict[str, Any] = {"environment": _plain(environment) or {}, "past_think": past_think, "samples": samples}
        if max_turn_tokens is not None:
            config["max_turn_tokens"] = _plain(max_turn_tokens)
        self.settings = LoopSettings.from_config(config)
        if self.enable_continuous_token:
            raise ValueError("the AEB agent loop builds its token sequence itself: set data.continuous_token.enable=false")
        if self.settings.samples == "turn" and not self.config.trainer.get("use_v1", True):
            raise ValueError("samples: turn (one sample per assistant turn) needs verl's V1 trainer, trainer.use_v1=true (verl 0.9's default): the legacy trainer takes one sample per row; use samples: dialogue there")
        self.prompt_length = self.rollout_config.prompt_length
        self.response_length = self.rollout_config.response_length

    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput | list[AgentLoopOutput]:
        messages = [_message(item) for item in kwargs["raw_prompt"]]
        spec = _episode_spec(kwargs.get("extra_info"))
        environment = process_environment(self.settings.environment)
        strip_think = self.settings.past_think == "strip"
        per_turn = self.settings.samples == "turn"
        request_id = uuid4().hex
        metrics: dict[str, Any] = {"generate_sequences": 0.0, "tool_calls": 0.0, "num_preempted": 0}

        episode: Optional[Episode] = None
        failure: Optional[AebEnvironmentError] = None
        truncated = False
        started = time.perf_counter()
        try:
            episode = await environment.reset(self._reset_request(spec, request_id, kwargs.get("global_steps")))
        except AebEnvironmentError as error:
            environment.failure(error)  # raises unless on_error is mark and the rate allows it
            failure = error
        metrics["tool_calls"] += time.perf_counter() - started
        if episode is not None:
            _check_opening(messages, episode)

        # The sample being built: the prompt the policy saw first, then replies (mask 1) and user
        # turns (mask 0). A turn sample is the context and one reply.
        sample_prompt = await self._render(messages)
        if len(sample_prompt) > self.prompt_length:
            raise ValueError(f"the row's prompt has {len(sample_prompt)} tokens, more than rollout.prompt_length {self.prompt_length}: raise data.max_prompt_length")
        response: list[int] = []
        mask: list[int] = []
        logprobs: list[float] = []
        turn_samples: list[tuple[list[int], list[int], Optional[list[float]]]] = []
        visible_messages = list(messages)
        assistant_turns = user_turns = 0

        while True:
            context = sample_prompt + response
            budget = self.response_length if per_turn else self.response_length - len(response)
            max_tokens = min(budget, self.settings.max_turn_tokens or budget)
            started = time.perf_counter()
            output = await self.server_manager.generate(request_id=request_id, prompt_ids=context, sampling_params={**sampling_params, "max_tokens": max_tokens})
            metrics["generate_sequences"] += time.perf_counter() - started
            metrics["num_preempted"] += output.num_preempted or 0
            tokens = list(output.token_ids)[:max_tokens]
            token_logprobs = list(output.log_probs)[: len(tokens)] if output.log_probs else None
            assistant_turns += 1
            response += tokens
            mask += [1] * len(tokens)
            if token_logprobs is not None:
                logprobs += token_logprobs
            if per_turn:
                turn_samples.append((context, tokens, token_logprobs))
            if failure is not None:
                break
            if not per_turn and len(response) >= self.response_length:
                truncated = True
                break
            text = self.tokenizer.decode(tokens, skip_special_tokens=True)
            reply = visible_reply(text)
            assert episode is not None
            started = time.perf_counter()
            try:
                answer = await environment.step(episode, reply)
            except AebEnvironmentError as error:
                environment.failure(error)
                failure = error
                break
            finally:
                metrics["tool_calls"] += time.perf_counter() - started
            user_turns += 1
            if episode.done:
                break
            user_message = {"role": "user", "content": answer["message"]}
            visible_messages += [{"role": "assistant", "content": reply}, user_message]
            if strip_think and reply != trim(text):
                # The user did not see all of this reply: the policy's next context is the visible
                # conversation, rendered afresh, and a sample restarts from it.
                sample_prompt = await self._render(visible_messages)
                response, mask, logprobs = [], [], []
                if len(sample_prompt) > self.prompt_length:
                    truncated = True
                    break
                continue
            user_tokens = self.turn_separator + await self._render([user_message], remove_system_prompt=True)
            if per_turn and len(context) + len(tokens) + len(user_tokens) > self.prompt_length:
                truncated = True
                break
            if not per_turn and len(response) + len(user_tokens) >= self.response_length:
                truncated = True
                break
            response += user_tokens
            mask += [0] * len(user_tokens)
            if token_logprobs is not None or logprobs:
                logprobs += [0.0] * len(user_tokens)

        extra_fields = {
            "turn_scores": list(episode.turn_rewards) if episode is not None else [],
            "tool_rewards": [],
            # Not aeb_failed / aeb_truncated: verl puts extra fields and the reward's keys side by
            # side in the batch, and these would overwrite the reward function's marks.
            "aeb_error": str(failure) if failure is not None else None,
            "aeb_budget_cut": truncated,
            "aeb_end_reason": episode.end_reason if episode is not None else None,
            "aeb_emotion": episode.emotion if episode is not None else None,
            "aeb_episode_id": episode.episode_id if episode is not None else None,
            "aeb_assistant_turns": assistant_turns,
        }
        if per_turn:
            return [
                AgentLoopOutput(
                    prompt_ids=prompt,
                    response_ids=reply_tokens,
                    response_mask=[1] * len(reply_tokens),
                    response_logprobs=reply_logprobs,
                    num_turns=2 * index + 2,
                    metrics=metrics,
                    extra_fields=dict(extra_fields),
                )
                for index, (prompt, reply_tokens, reply_logprobs) in enumerate(turn_samples)
            ]
        return AgentLoopOutput(
            prompt_ids=sample_prompt,
            response_ids=response[: self.response_length],
            response_mask=mask[: self.response_length],
            response_logprobs=logprobs[: self.response_length] if logprobs else None,
            num_turns=user_turns + assistant_turns + 1,
            metrics=metrics,
            extra_fields=extra_fields,
        )

    async def _render(self, messages: list[dict[str, Any]], remove_system_prompt: bool = False) -> list[int]:
        """The messages as the chat template tokenizes them, with the assistant header after them;
        never truncated (the base class's ``apply_chat_template`` cuts a long prompt silently)."""
        processing_class = self.processor if self.processor is not None else self.tokenizer
        ids = normalize_token_ids(await self.loop.run_in_executor(None, lambda: apply_chat_template(processing_class, messages, add_generation_prompt=True, tokenize=True, **self.apply_chat_template_kwargs)))
        return ids[len(self.system_prompt) :] if remove_system_prompt else ids

    def _reset_request(self, spec: Mapping[str, Any], request_id: str, global_steps: Any) -> dict[str, Any]:
        settings = self.settings.environment
        scenario_id = spec.get("scenario_id")
        trainer_step = _integer_or_none(global_steps, "global_steps")
        request: dict[str, Any] = {
            "scenarioId": scenario_id,
            "type": spec.get("type"),
            "suite": spec.get("suite"),
            "seed": _integer_or_none(spec.get("seed"), f"extra_info.{EPISODE_KEY}.seed"),
            "repeat": _integer_or_none(spec.get("repeat"), f"extra_info.{EPISODE_KEY}.repeat"),
            "preset": spec.get("preset") or settings.preset,
            "rewardMode": spec.get("reward_mode") or settings.reward_mode,
            "episodeId": f"verl/{scenario_id or spec.get('type') or spec.get('suite')}/{spec.get('seed')}/{spec.get('repeat')}/{request_id}"[:200],
            "trainerStep": trainer_step if trainer_step is not None and trainer_step >= 0 else None,
        }
        if settings.tags is not None:
            split = spec.get("split")
            request["tags"] = {**dict(settings.tags), **({"split": str(split)} if split else {})}
        return request


def _plain(value: Any) -> Any:
    """A Hydra/OmegaConf value as plain Python (verl instantiates the loop with DictConfig values)."""
    try:
        from omegaconf import DictConfig, ListConfig, OmegaConf
    except ImportError:  # pragma: no cover - verl depends on omegaconf
        return value
    if isinstance(value, (DictConfig, ListConfig)):
        return OmegaConf.to_container(value, resolve=True)
    return value


def _message(item: Any) -> dict[str, Any]:
    if not isinstance(item, Mapping) or "role" not in item or "content" not in item:
        raise ValueError(f"raw_prompt must be chat messages with role and content, got {item!r}")
    return {"role": str(item["role"]), "content": item["content"]}


def _episode_spec(extra_info: Any) -> Mapping[str, Any]:
    spec = extra_info.get(EPISODE_KEY) if isinstance(extra_info, Mapping) else None
    if not isinstance(spec, Mapping):
        raise ValueError(f"the row has no extra_info.{EPISODE_KEY} (scenario, seed, repeat of the episode): build the dataset with python3 -m aeb_verl.prepare")
    return spec


def _check_opening(messages: list[dict[str, Any]], episode: Episode) -> None:
    """The policy must answer the scenario's opening: a dataset built against other scenario files
    would otherwise train on rewards for a conversation that never happened."""
    opening = episode.messages[0]["content"]
    if not messages or messages[-1]["role"] != "user" or messages[-1]["content"] != opening:
        raise ValueError(
            f"the row's last message is not the opening of scenario {episode.scenario_id!r} as the server has it; "
            "rebuild the dataset against the scenarios the server serves (python3 -m aeb_verl.prepare)"
        )


def _integer_or_none(value: Any, name: str) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    # int, or a numpy integer from a row read back through Arrow.
    return int(value.__index__())
