/**
 * The floor of the environment server's stack (`npm run bench:server`): a bare fastify server that
 * parses the same step body (the JSON parser and body limit of `aeb serve`) and answers JSON of the
 * same shape and about the same size, doing no work of its own. The AEB server's CPU per step is
 * reported as a multiple of this one's.
 */
import Fastify from "fastify";

interface StepBody {
  token: string;
  messages: Array<{ role: string; content: string }>;
  reply: string;
}

const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
app.post("/v1/step", async (request) => {
  const body = request.body as StepBody;
  return {
    message: body.messages.at(-1)?.content ?? "",
    emotion: 50,
    change: 0,
    simulatorChange: 0,
    reward: 0,
    done: false,
    endReason: null,
    adjustments: [],
    flags: [],
    hid: null,
    turnIndex: (body.messages.length + 1) / 2,
    // A token of the size the client sent, as the real server signs one of about that size.
    token: body.token,
  };
});
await app.listen({ host: "127.0.0.1", port: 0 });
const address = app.server.address();
if (address === null || typeof address === "string") throw new Error("the floor server has no TCP address");
console.log(`listening on http://127.0.0.1:${address.port}`);
process.once("SIGTERM", () => void app.close().then(() => process.exit(0)));
