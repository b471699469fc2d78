import assert from "node:assert/strict";
import type { StallSignature } from "../../src/detection/classify.ts";
import {
  evaluateGates,
  isTruthy,
  killSwitchStatus,
  recordRecovery,
} from "../../src/guardrails/guardrails.ts";
import {
  emptyState,
  parseState,
  serializeState,
  type SessionState,
} from "../../src/guardrails/session_state.ts";

function signature(toolUseId: string, line = 7): StallSignature {
  return {
    kind: "pending_tool_use",
    toolName: "Read",
    toolUseId,
    offset: line * 100,
    line,
    rule: "tool_use has no tool_result in this turn",
  };
}

const limits = { maxRetries: 3, cooldownSeconds: 0 };

Deno.test("isTruthy() follows the seed: off only for empty, 0, false, no, off", () => {
  for (const value of ["", "0", "false", "FALSE", " no ", "off", "Off"]) {
    assert.equal(isTruthy(value), false, value);
  }
  for (const value of ["1", "true", "yes", "on", "anything"]) {
    assert.equal(isTruthy(value), true, value);
  }
});

Deno.test("killSwitchStatus() lets a set variable win over the marker file", () => {
  const base = {
    envName: "STALL_WATCH_DISABLED",
    file: ".claude/off",
    fileExists: true,
    configured: false,
  };
  assert.deepEqual(
    killSwitchStatus({ ...base, env: { STALL_WATCH_DISABLED: "0" } }),
    {
      active: false,
      source: "env STALL_WATCH_DISABLED=0",
    },
  );
  assert.deepEqual(killSwitchStatus({ ...base, env: {} }), {
    active: true,
    source: "file .claude/off",
  });
  assert.deepEqual(
    killSwitchStatus({ ...base, env: { STALL_WATCH_DISABLED: "yes" } }).active,
    true,
  );
});

Deno.test("killSwitchStatus() honours a renamed variable and the config file", () => {
  const facts = {
    env: { MY_OFF: "1", STALL_WATCH_DISABLED: "1" },
    file: null,
    fileExists: false,
    configured: false,
  };
  assert.equal(
    killSwitchStatus({ ...facts, envName: "MY_OFF" }).source,
    "env MY_OFF=1",
  );
  assert.equal(
    killSwitchStatus({ ...facts, env: {}, envName: "MY_OFF" }).active,
    false,
  );
  assert.deepEqual(
    killSwitchStatus({
      ...facts,
      env: {},
      envName: "MY_OFF",
      configured: true,
    }),
    {
      active: true,
      source: "config kill_switch",
    },
  );
});

Deno.test("evaluateGates() recovers and counts each tool_use_id once per recovery", () => {
  const state: SessionState = { ...emptyState(), retries: { toolu_a: 1 } };
  const decision = evaluateGates(
    [signature("toolu_a"), signature("toolu_b"), signature("toolu_a", 9)],
    state,
    limits,
    1000,
  );
  assert.equal(decision.gate, "recover");
  if (decision.gate !== "recover") return;
  assert.deepEqual(decision.retries, { toolu_a: 2, toolu_b: 1 });
  assert.equal(decision.allowed.length, 3);
  const next = recordRecovery(state, decision.retries, 1000);
  assert.deepEqual(next, {
    retries: { toolu_a: 2, toolu_b: 1 },
    lastRecoveryAt: 1000,
    configNotice: null,
  });
});

Deno.test("evaluateGates() holds back calls at the cap and nudges the rest", () => {
  const state: SessionState = { ...emptyState(), retries: { toolu_a: 3 } };
  const partial = evaluateGates(
    [signature("toolu_a"), signature("toolu_b")],
    state,
    limits,
    1000,
  );
  assert.equal(partial.gate, "recover");
  if (partial.gate === "recover") {
    assert.deepEqual(partial.allowed.map((s) => s.toolUseId), ["toolu_b"]);
    assert.deepEqual(
      partial.capped.map((c) => [c.signature.toolUseId, c.retries]),
      [["toolu_a", 3]],
    );
  }
  const capped = evaluateGates([signature("toolu_a")], state, limits, 1000);
  assert.deepEqual(
    capped.gate === "retry_cap" && capped.capped.map((c) => c.retries),
    [3],
  );
});

Deno.test("evaluateGates() with a zero cap never recovers", () => {
  const decision = evaluateGates([signature("toolu_a")], emptyState(), {
    maxRetries: 0,
    cooldownSeconds: 0,
  }, 5);
  assert.equal(decision.gate, "retry_cap");
});

Deno.test("evaluateGates() applies the cooldown before the retry cap", () => {
  const state: SessionState = {
    ...emptyState(),
    retries: { toolu_a: 3 },
    lastRecoveryAt: 1000,
  };
  const cooling = evaluateGates([signature("toolu_a")], state, {
    maxRetries: 3,
    cooldownSeconds: 60,
  }, 1042.5);
  assert.deepEqual(cooling, {
    gate: "cooldown",
    cooldownSeconds: 60,
    remainingSeconds: 17.5,
    lastRecoveryAt: 1000,
  });
  const cooled = evaluateGates([signature("toolu_a")], state, {
    maxRetries: 3,
    cooldownSeconds: 60,
  }, 1060);
  assert.equal(cooled.gate, "retry_cap");
  const off = evaluateGates([signature("toolu_b")], state, {
    maxRetries: 3,
    cooldownSeconds: 0,
  }, 1001);
  assert.equal(off.gate, "recover");
});

Deno.test("the retry cap holds for tool_use ids named like Object.prototype members", () => {
  for (
    const id of [
      "constructor",
      "toString",
      "__proto__",
      "hasOwnProperty",
      "valueOf",
    ]
  ) {
    let state: SessionState = emptyState();
    let nudges = 0;
    for (let stop = 0; stop < 10; stop++) {
      const decision = evaluateGates([signature(id)], state, limits, 1000);
      if (decision.gate !== "recover") break;
      nudges++;
      // Through the state file and back, as between two hook runs.
      state = parseState(
        serializeState(recordRecovery(state, decision.retries, 1000)),
      ).state;
    }
    assert.equal(nudges, limits.maxRetries, id);
    assert.deepEqual(Object.entries(state.retries), [[id, 3]], id);
    assert.equal(Object.getPrototypeOf(state.retries), Object.prototype, id);
  }
});

Deno.test("killSwitchStatus() never shows the value of the variable it names", () => {
  const status = killSwitchStatus({
    env: { GITHUB_TOKEN: "ghp_secret-xyz" },
    envName: "GITHUB_TOKEN",
    file: null,
    fileExists: false,
    configured: false,
  });
  assert.deepEqual(status, { active: true, source: "env GITHUB_TOKEN (set)" });
});

Deno.test("evaluateGates() with a turn cap holds back the turn's stalls at the cap, whatever their calls, and counts each recovery under the turn's key", () => {
  const turnCap = { key: "turn:t1", max: 2 };
  let state = emptyState();
  const decisions = ["call_a", "call_b", "call_c"].map((id) => {
    const decision = evaluateGates(
      [signature(id)],
      state,
      { ...limits, turnCap },
      1000,
    );
    if (decision.gate === "recover") {
      state = recordRecovery(state, decision.retries, 1000);
    }
    return decision;
  });
  assert.deepEqual(decisions.map((d) => d.gate), [
    "recover",
    "recover",
    "turn_cap",
  ]);
  assert.deepEqual(state.retries, { call_a: 1, call_b: 1, "turn:t1": 2 });
  const capped = decisions[2]!;
  assert.ok(capped.gate === "turn_cap");
  assert.deepEqual(capped.capped.map((c) => c.retries), [0]);
  // Another turn has its own count; no turn cap, no count.
  const next = evaluateGates(
    [signature("call_c")],
    state,
    { ...limits, turnCap: { key: "turn:t2", max: 2 } },
    1000,
  );
  assert.equal(next.gate, "recover");
  const plain = evaluateGates([signature("call_c")], state, limits, 1000);
  assert.ok(plain.gate === "recover");
  assert.deepEqual(plain.retries, { call_c: 1 });
});
