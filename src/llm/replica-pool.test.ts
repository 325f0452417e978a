import { describe, expect, it } from "vitest";
import { ReplicaPool } from "./replica-pool.js";

describe("ReplicaPool", () => {
  it("picks the replica with the fewest in-flight requests, ties by order", async () => {
    const pool = new ReplicaPool(["a", "b", "c"], 4);
    const picks = [];
    for (let i = 0; i < 5; i++) picks.push((await pool.acquire()).replica);
    expect(picks).toEqual(["a", "b", "c", "a", "b"]);
    expect(pool.inFlight()).toEqual([2, 2, 1]);
  });

  it("sends new work to the replica that freed a slot", async () => {
    const pool = new ReplicaPool(["a", "b"], 4);
    const first = await pool.acquire();
    await pool.acquire();
    first.release();
    expect((await pool.acquire()).replica).toBe("a");
  });

  it("queues beyond the per-replica limit and serves the queue in order", async () => {
    const pool = new ReplicaPool(["a"], 1);
    const held = await pool.acquire();
    const order: string[] = [];
    const second = pool.acquire().then((lease) => {
      order.push("second");
      return lease;
    });
    const third = pool.acquire().then((lease) => {
      order.push("third");
      return lease;
    });
    expect(pool.queued).toBe(2);

    held.release();
    (await second).release();
    (await third).release();

    expect(order).toEqual(["second", "third"]);
    expect(pool.inFlight()).toEqual([0]);
  });

  it("avoids the given replica while another has capacity", async () => {
    const pool = new ReplicaPool(["a", "b"], 2);
    await pool.acquire(); // a: 1
    expect((await pool.acquire({ avoid: 1 })).replica).toBe("a");
    expect((await pool.acquire({ avoid: 0 })).replica).toBe("b");
  });

  it("still uses an avoided replica when it is the only one", async () => {
    const pool = new ReplicaPool(["only"], 2);
    expect((await pool.acquire({ avoid: 0 })).replica).toBe("only");
  });

  it("drops a queued waiter whose signal aborts", async () => {
    const pool = new ReplicaPool(["a"], 1);
    const held = await pool.acquire();
    const controller = new AbortController();
    const waiting = pool.acquire({ signal: controller.signal });
    controller.abort(new Error("stop"));
    await expect(waiting).rejects.toThrow("stop");
    expect(pool.queued).toBe(0);
    held.release();
    expect(pool.inFlight()).toEqual([0]);
  });

  it("ignores a second release of the same lease", async () => {
    const pool = new ReplicaPool(["a"], 2);
    const lease = await pool.acquire();
    await pool.acquire();
    lease.release();
    lease.release();
    expect(pool.inFlight()).toEqual([1]);
  });
});
