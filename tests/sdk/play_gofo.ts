/**
 * Plays the README's 5-seat dealt Gofo choreography against a live referee
 * with the TypeScript client that openapi-generator (typescript-fetch) made
 * from openapi/openapi.json, used as generated: nothing in ./client is edited.
 *
 * tests/test_sdk_clients.py generates the client into ./client next to a copy
 * of this file, compiles both with tsc (strict) and runs
 *
 *     node dist/play_gofo.js BASE_URL
 *
 * Hand 1 makes the stacks differ; hand 2 has a blind entry, a raise of the
 * opening, a corte, a refiche, an all-in call (side pot), a fold, the final
 * discard and the canto. Every move is the generated typed method (gofoOpen,
 * gofoEnter, ...) made by the seat `to_act` names, after checking that the
 * seat's `legal_actions` offer it (amounts within min/max). The revealed deck
 * order is checked against its commitment with SHA-256 from node:crypto.
 * Any failed check throws (exit status 1); on success one JSON line goes to
 * stdout.
 */

import { createHash } from "node:crypto";

import {
  Configuration,
  CreateGofoTableModeEnum,
  Card,
  GofoApi,
  GofoHandPhaseEnum,
  GofoLegalActionTypeEnum,
  GofoSeatViewToJSON,
  GofoTableToJSON,
  LedgerToJSON,
  GofoTranscriptToJSON,
  ProblemFromJSON,
  ResponseError,
} from "./client";
import type {
  ApiResponse,
  Bet,
  Canto,
  DealReveal,
  GofoHand,
  GofoLegalAction,
  GofoSeatHand,
  GofoSeatView,
  GofoTable,
  GofoTableInfo,
  HandResult,
} from "./client";

// ---------------------------------------------------------------------------
// Compile-time checks: the generated types say what the server sends. A
// nullable value must admit null, and its non-null form must be the
// referenced schema. tsc fails on the first check that is false.
type Assert<T extends true> = T;
type IsNullable<T> = null extends T ? true : false;
type Is<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export type TypeChecks = [
  Assert<IsNullable<GofoTable["hand"]>>,
  Assert<IsNullable<GofoSeatView["hand"]>>,
  Assert<IsNullable<GofoTableInfo["lastDeal"]>>,
  Assert<IsNullable<GofoTableInfo["lastResult"]>>,
  Assert<IsNullable<GofoHand["toAct"]>>,
  Assert<IsNullable<GofoHand["bet"]>>,
  Assert<IsNullable<GofoHand["result"]>>,
  Assert<IsNullable<HandResult["values"][number]>>,
  // A folded hand is never shown: its entry in `shown` is null.
  Assert<IsNullable<HandResult["shown"][number]>>,
  Assert<IsNullable<Canto["cards"][number]>>,
  Assert<Is<NonNullable<GofoTable["hand"]>, GofoHand>>,
  Assert<Is<NonNullable<GofoSeatView["hand"]>, GofoSeatHand>>,
  Assert<Is<NonNullable<GofoTableInfo["lastDeal"]>, DealReveal>>,
  Assert<Is<NonNullable<GofoTableInfo["lastResult"]>, HandResult>>,
  Assert<Is<NonNullable<GofoHand["bet"]>, Bet>>,
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

/** The leaves and the reshuffle key leaves make the published commitment; each opened card matches its
 *  leaf, each revealed reshuffle key its key leaf. */
function dealChecksOut(deal: DealReveal): boolean {
  const keyHash = sha256Hex(`gofo-reshuffle-keys-v2|${deal.handId}|${deal.reshuffleKeyLeaves.join(",")}`);
  if (keyHash !== deal.reshuffleKeyHash) return false;
  if (sha256Hex(`gofo-deck-v2|${deal.handId}|${deal.leaves.join(",")}|${keyHash}`) !== deal.commitment) return false;
  const keysOpen = deal.reshuffleKeys.every(
    (r) => sha256Hex(`gofo-reshuffle-key-v2|${deal.handId}|${r.number}|${r.key}`) === deal.reshuffleKeyLeaves[r.number - 1],
  );
  return keysOpen && deal.openings.every(
    (o) => sha256Hex(`gofo-card-v1|${deal.handId}|${o.position}|${o.card}|${o.salt}`) === deal.leaves[o.position],
  );
}

/** The best hand wins a pot; equal values go to the player closer to mano. */
function potWinner(eligible: number[], values: Array<number | null>, mano: number, seats: number): number {
  const key = (s: number): [number, number] => [values[s] ?? -1, -((s - mano + seats) % seats)];
  return eligible.reduce((best, s) => {
    const [a, b] = [key(s), key(best)];
    return a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]) ? s : best;
  });
}

const CARDS: readonly string[] = Object.values(Card);

function isCard(card: string): card is Card {
  return CARDS.includes(card);
}

/** JSON with object keys sorted and undefined members dropped, to compare documents. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** The parsed model, after checking that it kept every field the server sent, with its value. */
async function roundtrip<T>(response: ApiResponse<T>, toJSON: (value: T) => unknown, what: string): Promise<T> {
  const sent: unknown = await response.raw.clone().json();
  const value = await response.value();
  check(canonical(toJSON(value)) === canonical(sent), `${what}: the generated model lost or changed a field`);
  return value;
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

type Where = { tableId: string; seat: number };

async function main(baseUrl: string): Promise<void> {
  const anyone = new GofoApi(new Configuration({ basePath: baseUrl }));
  const Move = GofoLegalActionTypeEnum;
  let requests = 0;

  // 1. A 5-seat dealt table; the first dealer is drawn and hand 1 dealt at once.
  const created = await anyone.createGofoTable({
    createGofoTable: { seats: 5, caja: 100, refill: 10, initialFront: 30, mode: CreateGofoTableModeEnum.Dealt },
  });
  requests += 1;
  const tableId = created.id;
  check(created.seatTokens.length === 5, "five seat tokens");
  check(created.hostToken.length > 0, "a host token");
  check(created.table.table.dealer !== null && created.table.table.handNumber === 1, "dealer drawn, hand 1");
  check(created.table.table.lastDeal === null, "no deal revealed yet");
  check(canonical(created.table.table.seats.map((s) => s.front)) === canonical([30, 30, 30, 30, 30]), "fronts of 30");
  const seats = created.seatTokens.map(
    (token) => new GofoApi(new Configuration({ basePath: baseUrl, accessToken: token ?? undefined })),  // null: a bot's seat
  );

  const publicView = async (): Promise<GofoTable> => {
    requests += 1;
    return roundtrip(await anyone.getGofoTableRaw({ tableId }), GofoTableToJSON, "GofoTable");
  };
  const hand = async (): Promise<GofoHand> => {
    const view = await publicView();
    check(view.hand !== null, "a hand in progress");
    return view.hand;
  };
  const toAct = async (): Promise<number> => {
    const seat = (await hand()).toAct;
    check(seat !== null, "someone to act");
    return seat;
  };
  const seatHand = async (seat: number): Promise<GofoSeatHand> => {
    requests += 1;
    const view = await roundtrip(await seats[seat].getGofoSeatViewRaw({ tableId, seat }), GofoSeatViewToJSON, "GofoSeatView");
    check(view.hand !== null && view.hand.seat === seat, `seat ${seat}'s own view`);
    return view.hand;
  };
  const legal = async (seat: number, type: GofoLegalActionTypeEnum, blind?: boolean): Promise<GofoLegalAction> => {
    const actions = (await seatHand(seat)).legalActions;
    const action = actions.find((a) => a.type === type && (blind === undefined || a.blind === blind));
    check(action !== undefined, `seat ${seat} may not ${type}${blind === undefined ? "" : blind ? " blind" : " seen"}: ${JSON.stringify(actions)}`);
    return action;
  };
  const inRange = (action: GofoLegalAction, n: number): boolean =>
    action.min !== undefined && action.max !== undefined && action.min <= n && n <= action.max;

  /** The seat to act makes ``type`` (its legal actions must offer it) with the typed method ``move``. */
  const play = async (
    type: GofoLegalActionTypeEnum,
    move: (api: GofoApi, where: Where) => Promise<GofoSeatView>,
    check_: (action: GofoLegalAction) => boolean = () => true,
    blind?: boolean,
  ): Promise<GofoSeatHand> => {
    const seat = await toAct();
    const action = await legal(seat, type, blind);
    check(check_(action), `seat ${seat} ${type}: outside ${JSON.stringify(action)}`);
    requests += 1;
    const view = await move(seats[seat], { tableId, seat });
    check(view.hand !== null && view.hand.seat === seat, `the response is seat ${seat}'s view`);
    return view.hand;
  };
  const open = (amount: number) =>
    play(Move.Open, (api, at) => api.gofoOpen({ ...at, open: { amount } }), (a) => inRange(a, amount));
  const enter = (blind: boolean) =>
    play(Move.Enter, (api, at) => api.gofoEnter({ ...at, enter: { blind } }), () => true, blind);
  const decline = () => play(Move.Decline, (api, at) => api.gofoDecline(at));
  const pass = () => play(Move.Pass, (api, at) => api.gofoPass(at));
  const ver = () => play(Move.Ver, (api, at) => api.gofoVer(at));
  const noVer = () => play(Move.NoVer, (api, at) => api.gofoNoVer(at));
  const voy = () => play(Move.Voy, (api, at) => api.gofoVoy(at));
  const raise = (amount: number) =>
    play(Move.Raise, (api, at) => api.gofoRaise({ ...at, amount: { amount } }), (a) => inRange(a, amount));
  const corta = (amount: number) =>
    play(Move.Corta, (api, at) => api.gofoCorta({ ...at, amount: { amount } }), (a) => inRange(a, amount));
  const refiche = (amount: number) =>
    play(Move.Refiche, (api, at) => api.gofoRefiche({ ...at, amount: { amount } }), (a) => inRange(a, amount));
  const discard = (cards: Card[]) =>
    play(
      Move.Discard,
      (api, at) => api.gofoDiscard({ ...at, discard: { cards } }),
      (a) => inRange(a, cards.length) && cards.every((c) => a.cards !== undefined && a.cards.includes(c)),
    );

  // A refusal comes back as problem+json the client can read.
  let h = await hand();
  const mano1 = h.mano;
  const other = (mano1 + 1) % 5;
  await expectProblem(() => seats[other].gofoOpen({ tableId, seat: other, open: { amount: 1 } }), 409, "not_your_turn");
  await expectProblem(() => seats[other].gofoOpen({ tableId, seat: mano1, open: { amount: 1 } }), 403, "not_your_seat");
  requests += 2;

  // 2. Hand 1 makes the stacks differ: mano opens 5, one enters, the rest decline; mano cuts 10, he folds.
  const commitment1 = h.deckCommitment;
  check(typeof commitment1 === "string" && /^[0-9a-f]{64}$/.test(commitment1), "hand 1's deck commitment");
  check(h.phase === GofoHandPhaseEnum.Opening && h.toAct === mano1, "mano opens");
  await open(5);
  await enter(false);
  for (let i = 0; i < 3; i++) await decline();
  await pass(); // mano does not raise the opening
  h = await hand();
  check(h.phase === GofoHandPhaseEnum.Speaking && h.toAct === mano1, `speaking, mano to act: ${h.phase}`);
  await corta(10);
  await noVer(); // everyone folded to the bet: mano takes the pot
  let state = await publicView();
  check(state.table.handNumber === 2, "hand 2 began");
  check(state.table.lastResult !== null && state.table.lastResult.reason === "uncontested", "hand 1 uncontested");
  const fronts = state.table.seats.map((s) => s.front);
  check(fronts[mano1] === 35 && fronts[(mano1 + 1) % 5] === 25, `fronts after hand 1: ${JSON.stringify(fronts)}`);
  let deal = state.table.lastDeal;
  check(deal !== null && deal.handId === `${tableId}-1`, "hand 1's deal revealed");
  check(deal.commitment === commitment1, "the revealed commitment is the one published before hand 1");
  check(dealChecksOut(deal) && deal.openings.length === 0, "hand 1's deal matches its commitment and shows no card");

  // 3. Hand 2: the short stack (25) is mano; the previous mano deals and plays last.
  check(state.hand !== null, "hand 2 in progress");
  h = state.hand;
  const mano = h.mano;
  const dealer = h.dealer;
  check(mano === (mano1 + 1) % 5 && dealer === mano1, "the deal moved on");
  check(h.handId === `${tableId}-2`, "hand 2's id");
  const commitment2 = h.deckCommitment;
  check(typeof commitment2 === "string" && commitment2 !== commitment1, "hand 2's deck commitment");
  const order = [0, 1, 2, 3, 4].map((k) => (mano + k) % 5); // mano, blind entrant, two seen entrants, dealer
  await open(2);
  await enter(true); // de ciego: without looking
  check(canonical((await seatHand(order[1])).myCards) === "[]", "the blind entrant sees no card");
  for (let i = 0; i < 3; i++) await enter(false);
  // Raising the opening: mano passes, the blind entrant raises 3, everyone sees it, nobody re-raises.
  check((await toAct()) === mano, "mano may raise first");
  await pass();
  check((await toAct()) === order[1], "then the blind entrant");
  await raise(3);
  for (let i = 0; i < 4; i++) await ver();
  for (let i = 0; i < 4; i++) await pass();
  h = await hand();
  check(h.phase === GofoHandPhaseEnum.Speaking, `speaking, got ${h.phase}`);
  check(canonical(h.committed) === canonical([5, 5, 5, 5, 5]), `5 each committed: ${JSON.stringify(h.committed)}`);
  // Speaking round 1: mano says voy, the blind entrant cuts 4, everyone sees.
  await voy();
  await corta(4);
  for (let i = 0; i < 4; i++) await ver();
  // Refiches from the bettor's next: two pass, the dealer refiches 20 (legal: 4 to 26).
  await pass();
  await pass();
  check((await toAct()) === dealer, "the dealer may refiche");
  const range = await legal(dealer, Move.Refiche);
  check(range.min === 4 && range.max === 26, `refiche range ${range.min}-${range.max}`);
  await refiche(20);
  // Mano has 16 left against 20: ver puts him all-in (jugado); a side pot forms. One folds.
  check((await toAct()) === mano, "mano answers the refiche");
  await ver();
  h = await hand();
  check(h.resto[mano] === 0 && h.committed[mano] === 25, "mano is all-in with 25");
  await ver();
  await ver();
  const folded = await toAct();
  await noVer();
  await pass(); // nobody refiches again: betting closes
  await pass();
  h = await hand();
  check(h.phase === GofoHandPhaseEnum.Discard && h.finalDiscard && !h.keepRight, `the final discard, got ${h.phase}`);
  const live = [0, 1, 2, 3, 4].filter((s) => h.status[s] === "in");
  check(canonical(live) === canonical(order.filter((s) => s !== folded).sort((a, b) => a - b)), `live seats ${JSON.stringify(live)}`);
  check(live.includes(mano), "the all-in mano is still in");
  check(canonical(h.pots.map((p) => p.amount)) === "[109,12]", `pots ${JSON.stringify(h.pots)}`);
  check(canonical([...h.pots[0].eligible].sort((a, b) => a - b)) === canonical(live), "everyone live may win the main pot");
  check(!h.pots[1].eligible.includes(mano), "the all-in mano may not win the side pot");

  // 4. The final discard (one card each: a view's cards are the same Card type a move takes), then the canto.
  for (let i = 0; i < live.length; i++) {
    const seat = await toAct();
    const mine = (await seatHand(seat)).myCards ?? [];
    check(mine.length === 5, `seat ${seat} holds five cards`);
    const card = mine[0];
    check(isCard(card), `${card} is a card of the spec's enum`);
    await discard([card]);
  }
  state = await publicView();
  const result = state.table.lastResult;
  check(result !== null && result.reason === "canto", "hand 2 went to the canto");
  check(canonical(result.pots.map((p) => p.amount)) === "[109,12]", `paid pots ${JSON.stringify(result.pots)}`);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  check(sum(result.payouts) === 121, `payouts ${JSON.stringify(result.payouts)}`);
  check(sum(result.net) === 0, `net ${JSON.stringify(result.net)}`);
  check(result.shown[folded] === null && result.values[folded] === null, "the folded hand is never shown");
  for (const s of live) {
    check(result.values[s] !== null && result.shown[s] !== null && result.shown[s].length === 5, `seat ${s} shown`);
  }
  for (const pot of result.pots) {
    const expected = potWinner(pot.eligible, result.values, mano, 5);
    check(pot.winner === expected, `pot ${pot.amount} won by ${pot.winner}, expected ${expected}`);
  }

  // 5. The deck was fixed before the deal: the revealed order and salt hash to the published commitment.
  deal = state.table.lastDeal;
  check(deal !== null && deal.hand === 2 && deal.handId === `${tableId}-2`, "hand 2's deal revealed");
  check(deal.leaves.length === 28 && deal.openings.length > 0, "a whole deck, public cards opened");
  check(deal.commitment === commitment2, "the revealed commitment is the one published before hand 2");
  check(dealChecksOut(deal), "hand 2's opened cards match its commitment");

  // Chips are conserved at the table; the ledger and the transcript list both hands.
  const ledger = await roundtrip(await anyone.getGofoLedgerRaw({ tableId }), LedgerToJSON, "Ledger");
  const transcript = await roundtrip(await anyone.getGofoTranscriptRaw({ tableId }), GofoTranscriptToJSON, "GofoTranscript");
  requests += 2;
  check(sum(ledger.seats.map((s) => s.front + s.behind)) === 500, "500 chips at the table");
  check(sum(ledger.seats.map((s) => s.balance)) === 0, "balances sum to 0");
  check(
    ledger.handsPlayed === 2 && ledger.results.length === 2,
    `the ledger lists both hands, got hands_played=${ledger.handsPlayed}, ${ledger.results.length} results`,
  );
  check(transcript.handsFinished === 2, "the transcript has 2 finished hands");
  check(canonical(transcript.deals.map((d) => d.commitment)) === canonical([commitment1, commitment2]), "both deals");

  process.stdout.write(
    JSON.stringify({
      id: tableId,
      hand_id: deal.handId,
      commitment: deal.commitment,
      pots: result.pots.map((p) => p.amount),
      payouts: result.payouts,
      net: result.net,
      requests,
    }) + "\n",
  );
}

const baseUrl = process.argv[2];
if (!baseUrl) {
  process.stderr.write("usage: node play_gofo.js BASE_URL\n");
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
