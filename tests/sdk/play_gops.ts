/**
 * Plays one classic 2-player Gops game against a live referee with the
 * TypeScript client that openapi-generator (typescript-fetch) made from
 * openapi/openapi.json, used as generated: nothing in ./client is edited.
 *
 * tests/test_sdk_clients.py generates the client into ./client next to a copy
 * of this file, compiles both with tsc (strict) and runs
 *
 *     node dist/play_gops.js BASE_URL
 *
 * Seat 0 bids its cards upwards (A, 2, ... K), seat 1 downwards (K, ... A), as
 * in the README. Bids are committed with SHA-256 from node:crypto. Any failed
 * check throws (exit status 1); on success one JSON line goes to stdout.
 */

import { createHash, randomBytes } from "node:crypto";

import {
  Configuration,
  CreateGopsGameProfileEnum,
  GopsApi,
  GopsGamePhaseEnum,
  LegalActionTypeEnum,
  ProblemFromJSON,
  ResponseError,
} from "./client";
import type { GameResult, GopsGame, GopsSeatView, GopsTranscript, MatchResult, RevealedBid, TranscriptResult } from "./client";

// ---------------------------------------------------------------------------
// Compile-time checks: the generated types say what the spec says. A nullable
// property must admit null, and its non-null form must be the referenced
// schema (not an opaque object). tsc fails on the first check that is false.
type Assert<T extends true> = T;
type IsNullable<T> = null extends T ? true : false;
type Is<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export type TypeChecks = [
  Assert<IsNullable<GopsGame["chooser"]>>,
  Assert<IsNullable<GopsGame["potValue"]>>,
  Assert<IsNullable<GopsGame["prizeOrder"]>>,
  Assert<IsNullable<GopsGame["result"]>>,
  Assert<IsNullable<GopsGame["gameResult"]>>,
  Assert<IsNullable<GopsSeatView["myReveal"]>>,
  Assert<IsNullable<GopsTranscript["result"]>>,
  Assert<Is<NonNullable<GopsGame["result"]>, MatchResult>>,
  Assert<Is<NonNullable<GopsGame["gameResult"]>, GameResult>>,
  Assert<Is<NonNullable<GopsSeatView["myReveal"]>, RevealedBid>>,
  Assert<Is<NonNullable<GopsTranscript["result"]>, TranscriptResult>>,
];

// ---------------------------------------------------------------------------

function check(condition: unknown, message: string): asserts condition {
  if (!condition) {
    throw new Error(`check failed: ${message}`);
  }
}

function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * A new salt for one commitment: 32 bytes from the OS CSPRNG as 64 hex characters. Draw one for every
 * commitment and never reuse it (nor a test vector's): a bid has at most 13 values, so anyone who knows
 * the salt reads the bid by trying them all, and a revealed salt is public from then on.
 */
function freshSalt(): string {
  return randomBytes(32).toString("hex");
}

function bidCommitment(gameId: string, round: number, seat: number, cards: number[], salt: string): string {
  return sha256Hex(`gops-bid-v1|${gameId}|${round}|${seat}|${cards.join(",")}|${salt}`);
}

/** Runs ``call``, which must be refused with ``status`` and problem ``code``. */
async function expectProblem(call: () => Promise<unknown>, status: number, code: string): Promise<void> {
  try {
    await call();
  } catch (error) {
    check(error instanceof ResponseError, `expected a ResponseError, got ${String(error)}`);
    check(error.response.status === status, `expected HTTP ${status}, got ${error.response.status}`);
    const contentType = error.response.headers.get("content-type") ?? "";
    check(contentType.startsWith("application/problem+json"), `problem content type, got ${contentType}`);
    const problem = ProblemFromJSON(await error.response.json());
    check(problem.code === code, `expected code ${code}, got ${JSON.stringify(problem)}`);
    check(problem.status === status, `problem status ${problem.status}`);
    return;
  }
  throw new Error(`expected HTTP ${status} ${code}, but the call succeeded`);
}

async function main(baseUrl: string): Promise<void> {
  const anyone = new GopsApi(new Configuration({ basePath: baseUrl }));

  // 1. Create a classic game; keep the tokens.
  const created = await anyone.createGopsGame({
    createGopsGame: { profile: CreateGopsGameProfileEnum.Classic },
  });
  const gameId = created.id;
  check(created.seatTokens.length === 2, "two seat tokens");
  check(typeof created.hostToken === "string" && created.hostToken.length > 0, "a host token");
  check(created.game.phase === GopsGamePhaseEnum.Commit, `phase commit, got ${created.game.phase}`);
  check(created.game.rules.players === 2, "2 players");
  check(created.game.result === null, "no result yet");
  check(created.game.gameResult === null, "no game result yet");
  const prizeCommitment = created.game.prizeCommitment;
  check(typeof prizeCommitment === "string" && /^[0-9a-f]{64}$/.test(prizeCommitment), "a prize commitment");

  const seats = created.seatTokens.map(
    (token) => new GopsApi(new Configuration({ basePath: baseUrl, accessToken: token ?? undefined })),  // null: a bot's seat
  );

  // A refusal comes back as problem+json the client can read.
  await expectProblem(
    () => seats[0].commitGopsBid({ gameId, seat: 0, commit: { round: 2, commitment: "0".repeat(64) } }),
    409,
    "wrong_round",
  );
  await expectProblem(
    () => seats[1].commitGopsBid({ gameId, seat: 0, commit: { round: 1, commitment: "0".repeat(64) } }),
    403,
    "not_your_seat",
  );

  // 2. Commit and reveal every round until the game is over.
  let state = await anyone.getGopsGame({ gameId });
  let rounds = 0;
  while (state.phase !== GopsGamePhaseEnum.Over) {
    check(state.phase === GopsGamePhaseEnum.Commit, `expected phase commit, got ${state.phase}`);
    check(rounds < 13, "at most 13 rounds");
    const round = state.round;
    const bids = [[round], [14 - round]];
    const salts = bids.map(() => freshSalt()); // a new salt per commitment, every round

    for (let seat = 0; seat < 2; seat++) {
      const view = await seats[seat].getGopsSeatView({ gameId, seat });
      check(view.seat === seat, "the seat's own view");
      const commitAction = view.legalActions.find((action) => action.type === LegalActionTypeEnum.Commit);
      check(commitAction !== undefined, `seat ${seat} may commit`);
      check(commitAction.round === round, `commit round ${commitAction.round} != ${round}`);
      check(commitAction.hand !== undefined && commitAction.hand.includes(bids[seat][0]), "the bid is in hand");
      const commitment = bidCommitment(state.gameId, round, seat, bids[seat], salts[seat]);
      const after = await seats[seat].commitGopsBid({ gameId, seat, commit: { round, commitment } });
      check(after.committed.includes(seat), `seat ${seat} committed`);
    }

    for (let seat = 0; seat < 2; seat++) {
      const after = await seats[seat].revealGopsBid({
        gameId,
        seat,
        reveal: { round, cards: bids[seat], salt: salts[seat] },
      });
      if (seat === 0) {
        // Seat 1 has not revealed yet: seat 0 sees its own reveal.
        check(after.myReveal !== null, "my_reveal after revealing");
        check(after.myReveal.salt === salts[0], "my_reveal salt");
        check(JSON.stringify(after.myReveal.cards) === JSON.stringify(bids[0]), "my_reveal cards");
      } else {
        const record = after.history[after.history.length - 1];
        check(record.round === round, `history records round ${round}`);
        check(JSON.stringify(record.bids["0"]) === JSON.stringify(bids[0]), "seat 0's bid in the history");
        check(JSON.stringify(record.bids["1"]) === JSON.stringify(bids[1]), "seat 1's bid in the history");
      }
    }
    rounds += 1;
    state = await anyone.getGopsGame({ gameId });
  }
  check(rounds === 13, `13 rounds played, got ${rounds}`);

  // 3. The result.
  const result = state.result;
  check(result !== null, "a result once over");
  check(result.format === "single", `format single, got ${result.format}`);
  check(result.gamesPlayed === 1, "one game played");
  const gameResult = state.gameResult;
  check(gameResult !== null, "a game result once over");
  check(gameResult.termination === "completed", `completed, got ${gameResult.termination}`);

  // The referee committed to the prize order before any bid.
  const order = state.prizeOrder;
  const prizeSalt = state.prizeSalt;
  check(order !== null && prizeSalt !== null, "prize order and salt revealed");
  check(
    sha256Hex(`gops-prizes-v1|${state.gameId}|${order.join(",")}|${prizeSalt}`) === prizeCommitment,
    "the prize order matches the commitment published at creation",
  );

  // Seat 1 (K downwards) wins rounds 1-6; round 7 (7 against 7) ties and
  // carries over to round 8; seat 0 wins rounds 8-13 and so the prizes 7-13.
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const expected = [sum(order.slice(6)), sum(order.slice(0, 6))];
  check(
    JSON.stringify(result.totals) === JSON.stringify(expected.map(String)),
    `totals ${JSON.stringify(result.totals)} != ${JSON.stringify(expected)}`,
  );
  check(JSON.stringify(state.scores) === JSON.stringify(expected.map(String)), "scores equal totals");
  const best = Math.max(...expected);
  const winners = [0, 1].filter((seat) => expected[seat] === best);
  check(JSON.stringify(result.winners) === JSON.stringify(winners), `winners ${JSON.stringify(result.winners)}`);

  // A move after the end is refused.
  await expectProblem(
    () => seats[0].commitGopsBid({ gameId, seat: 0, commit: { round: 14, commitment: "0".repeat(64) } }),
    409,
    "game_over",
  );

  const transcript = await anyone.getGopsTranscript({ gameId });
  check(transcript.complete === true, "the transcript is complete");
  check(transcript.result !== null && JSON.stringify(transcript.result.totals) === JSON.stringify(result.totals), "transcript result");

  process.stdout.write(
    JSON.stringify({
      id: gameId,
      game_id: state.gameId,
      rounds,
      version: state.version,
      totals: result.totals,
      winners: result.winners,
      prize_order: order,
      transcript_entries: transcript.entries.length,
    }) + "\n",
  );
}

const baseUrl = process.argv[2];
if (!baseUrl) {
  process.stderr.write("usage: node play_gops.js BASE_URL\n");
  process.exit(2);
}
main(baseUrl).catch(async (error: unknown) => {
  let detail = error instanceof Error ? error.stack ?? error.message : String(error);
  if (error instanceof ResponseError) {
    detail += `\nHTTP ${error.response.status}: ${await error.response.text()}`;
  }
  process.stderr.write(detail + "\n");
  process.exit(1);
});
