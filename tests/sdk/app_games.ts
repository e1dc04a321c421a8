/**
 * An app's server with the TypeScript client that openapi-generator (typescript-fetch) made from
 * openapi/openapi.json, used as generated: its key goes in the Configuration's apiKey (the spec's
 * appKey scheme: the Referee-App-Key header) and the client sends it on the creates and the listing.
 *
 *     node dist/app_games.js BASE_URL APP_KEY
 *
 * Creates a Gops game and a Gofo table with the key, then lists the app's games, one page at a
 * time. Any failed check throws (exit status 1); on success one JSON line goes to stdout.
 */

import { AppsApi, Configuration, GofoApi, GopsApi, ListAppGamesGameEnum, ResponseError } from "./client";
import type { AppGame } from "./client";

async function main(): Promise<void> {
  const [basePath, apiKey] = process.argv.slice(2);
  const app = new Configuration({ basePath, apiKey });
  const made = [
    (await new GopsApi(app).createGopsGame({ createGopsGame: {} })).id,
    (await new GofoApi(app).createGofoTable({ createGofoTable: {} })).id,
  ];
  const apps = new AppsApi(app);
  const first = await apps.listAppGames({ limit: 1 });
  const cursor = first.nextCursor;
  if (cursor === null || cursor === undefined) throw new Error("a first page of one game of two has a next cursor");
  const second = await apps.listAppGames({ limit: 1, cursor });
  const listed: AppGame[] = [...first.games, ...second.games];
  const gops = await apps.listAppGames({ game: ListAppGamesGameEnum.Gops });
  let refused = 0;
  try {
    await new AppsApi(new Configuration({ basePath })).listAppGames({});
  } catch (error) {
    if (!(error instanceof ResponseError)) throw error;
    refused = error.response.status;
  }
  console.log(JSON.stringify({ made, listed: listed.map((g) => g.id), gops: gops.games.map((g) => g.id), refused }));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
