"""verl's own rollout machinery on a CPU, around the AEB agent loop (the installed verl 0.9).

What is verl's, unchanged: the trainer config composed by Hydra from the ``trainer.yaml`` that
``aeb_verl.prepare`` wrote (with verl's ``ppo_trainer`` defaults through ``pkg://``), the dataset
(``RLHFDataset`` and its ``collate_fn`` on the prepared rows), ``AgentLoopWorker`` (it loads the
registration file, instantiates the loop per sample, pads, and calls the reward loop),
``LLMServerClient`` with verl's ``GlobalRequestLoadBalancer`` as a Ray actor, and
``RewardLoopWorker`` with the naive reward manager as a Ray actor, the way the trainer streams
rewards from the agent loop.

What stands in for the GPU: ``StubPolicy``, a Ray actor answering the LLM server's ``generate``
contract (prompt token ids in, a ``TokenOutput`` out) with the canned replies of
``fixtures/policy-replies.json``, and a tiny tokenizer and model built by ``tiny_model``.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any, Optional

import ray
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from verl.experimental.agent_loop.agent_loop import AgentLoopWorker
from verl.experimental.reward_loop.reward_loop import RewardLoopWorker
from verl.protocol import DataProto
from verl.utils.dataset.rl_dataset import RLHFDataset, collate_fn
from verl.workers.rollout.llm_server import GlobalRequestLoadBalancer, LLMServerClient
from verl.workers.rollout.replica import TokenOutput

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "fixtures", "policy-replies.json"), encoding="utf-8") as _handle:
    REPLIES: list[dict[str, str]] = json.load(_handle)["replies"]
THINK_MARKER = "PRIVATE-REASONING"
ASSISTANT_HEADER = "<|im_start|>assistant"


def canned_reply(turn: int) -> dict[str, str]:
    return REPLIES[turn % len(REPLIES)]


class StubPolicy:
    """The policy's LLM server: answers assistant turn k of a dialogue (the number of assistant
    headers in the prompt, minus the one it is asked to complete) with ``canned_reply(k)`` and the
    end token, cut to ``max_tokens``; records every prompt it was given."""

    def __init__(self, model_dir: str):
        from transformers import AutoTokenizer

        self.tokenizer = AutoTokenizer.from_pretrained(model_dir)
        self.end = self.tokenizer.convert_tokens_to_ids("<|im_end|>")
        self.prompts: list[str] = []
        self.max_tokens: list[Optional[int]] = []

    async def generate(self, request_id: str, prompt_ids: list[int], sampling_params: dict[str, Any], image_data: Any = None, video_data: Any = None, **kwargs: Any) -> TokenOutput:
        prompt = self.tokenizer.decode(prompt_ids)
        self.prompts.append(prompt)
        self.max_tokens.append(sampling_params.get("max_tokens"))
        turn = prompt.count(ASSISTANT_HEADER) - 1
        tokens = self.tokenizer.encode(canned_reply(turn)["completion"], add_special_tokens=False) + [self.end]
        limit = sampling_params.get("max_tokens")
        if limit is not None:
            tokens = tokens[:limit]
        return TokenOutput(token_ids=tokens, log_probs=[-0.5] * len(tokens), stop_reason="completed", num_preempted=0)

    def seen(self) -> tuple[list[str], list[Optional[int]]]:
        return self.prompts, self.max_tokens


def start_ray() -> None:
    if not ray.is_initialized():
        # One CPU per actor is what they ask for; the stub, the balancer and the reward worker.
        ray.init(num_cpus=4, include_dashboard=False, log_to_driver=False, configure_logging=False, runtime_env={"env_vars": {"TOKENIZERS_PARALLELISM": "false", "PYTHONPATH": os.pathsep.join(p for p in (HERE, os.path.dirname(HERE), os.environ.get("PYTHONPATH", "")) if p)}})


def trainer_config(prepared: str, model_dir: str, *overrides: str) -> Any:
    """The prepared ``trainer.yaml`` as ``main_ppo`` composes it, pointed at the tiny model."""
    with initialize_config_dir(config_dir=prepared, version_base=None):
        config = compose("trainer", overrides=[f"actor_rollout_ref.model.path={model_dir}", "actor_rollout_ref.rollout.agent.num_workers=1", "reward.num_workers=1", *overrides])
    OmegaConf.resolve(config)
    return config


class Rollout:
    """A stub policy, verl's load balancer and LLM client, a reward loop worker: one per test class."""

    def __init__(self, model_dir: str, config: Any):
        start_ray()
        self.policy = ray.remote(StubPolicy).remote(model_dir)
        self.balancer = ray.remote(GlobalRequestLoadBalancer).remote({"stub-0": self.policy})
        self.reward = ray.remote(RewardLoopWorker).remote(config, None)
        self.config = config

    def worker(self, config: Optional[Any] = None) -> AgentLoopWorker:
        config = config if config is not None else self.config
        return AgentLoopWorker(config, LLMServerClient(config, self.balancer), None, [self.reward])

    def dataset(self, files: list[str], config: Optional[Any] = None) -> RLHFDataset:
        config = config if config is not None else self.config
        return RLHFDataset(files, worker_tokenizer(config), config.data)

    def generate(self, files: list[str], config: Optional[Any] = None, repeat: int = 1) -> tuple[DataProto, DataProto]:
        """(the batch verl's dataloader makes of the rows, what AgentLoopWorker returns for it)."""
        config = config if config is not None else self.config
        dataset = self.dataset(files, config)
        batch = DataProto.from_single_dict(collate_fn([dataset[index] for index in range(len(dataset))]))
        if repeat > 1:
            batch = batch.repeat(repeat_times=repeat, interleave=True)
        worker = self.worker(config)
        return batch, asyncio.run(worker.generate_sequences(batch))

    def policy_seen(self) -> tuple[list[str], list[Optional[int]]]:
        return ray.get(self.policy.seen.remote())


def worker_tokenizer(config: Any) -> Any:
    """The tokenizer verl's workers use: the one ``HFModelConfig`` loads from the model path."""
    from verl.utils import hf_tokenizer

    return hf_tokenizer(config.actor_rollout_ref.model.path)


def generate_through_transfer_queue(model_dir: str, config: Any, files: list[str], rows: int, timeout: float = 300.0) -> tuple[list[list[dict[str, Any]]], tuple[list[str], list[Optional[int]]]]:
    """The first ``rows`` rows rolled out as verl 0.9's default (V1) trainer rolls them out:
    TransferQueue up, the prompts registered in it, ``AgentLoopWorkerTQ`` (a Ray actor, so the AEB
    loop runs in its own worker process) fed the batch; returns each row's samples as the trainer
    reads them back from TransferQueue, per row in the order the loop returned them, and what the
    stub policy was asked (its prompts and ``max_tokens``)."""
    import time
    import uuid

    import numpy as np
    import transfer_queue as tq

    from verl.trainer.ppo.v1.agent_loop_tq import AgentLoopWorkerTQ
    from verl.utils import tensordict_utils as tu

    start_ray()
    config.transfer_queue.enable = True
    tq.init(config.transfer_queue)
    try:
        policy = ray.remote(StubPolicy).remote(model_dir)
        balancer = ray.remote(GlobalRequestLoadBalancer).remote({"stub-0": policy})
        reward = ray.remote(RewardLoopWorker).remote(config, None)
        worker = AgentLoopWorkerTQ.remote(config, LLMServerClient(config, balancer), None, [reward])
        dataset = RLHFDataset(files, worker_tokenizer(config), config.data)
        columns = collate_fn([dataset[index] for index in range(rows)])
        uids = [str(uuid.uuid4()) for _ in range(rows)]
        columns["uid"] = np.array(uids, dtype=object)
        batch = tu.get_tensordict(columns)
        tu.assign_non_tensor_data(batch, "global_steps", 1)
        tq.kv_batch_put(keys=uids, partition_id="train", tags=[{"is_prompt": True, "status": "pending", "global_steps": 1} for _ in uids])
        ray.get(worker.generate_sequences.remote(batch))
        deadline = time.monotonic() + timeout
        while True:
            items = tq.kv_list("train")["train"]
            statuses = [items[uid]["status"] for uid in uids]
            if all(status in ("finished", "failure") for status in statuses):
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"the rollout did not finish in {timeout} s: {statuses}")
            time.sleep(0.5)
        if "failure" in statuses:
            raise RuntimeError(f"verl reports failed rollouts: {statuses}")
        keys = [key for key, tag in items.items() if not tag.get("is_prompt", False)]
        data = tq.kv_batch_get(keys=keys, partition_id="train")
        samples: dict[str, list[dict[str, Any]]] = {}
        for position, key in enumerate(keys):
            uid, _, index = key.rsplit("_", 2)
            samples.setdefault(uid, []).append({"index": int(index), "prompts": data["prompts"][position].tolist(), "responses": data["responses"][position].tolist(), "response_mask": data["response_mask"][position].tolist(), "rm_scores": data["rm_scores"][position].tolist(), "extra_fields": data["extra_fields"][position]})
        return [sorted(samples.get(uid, []), key=lambda sample: sample["index"]) for uid in uids], ray.get(policy.seen.remote())
    finally:
        tq.close()
