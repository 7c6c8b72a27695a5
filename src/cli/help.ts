/** The command lines askseam takes, printed after a mistake in one. */
export const USAGE = `Usage:
  askseam [demo] [--timeout SECONDS] [--web] [--framework NAME] [--fresh]
  askseam console --store FILE | --postgres URL [--port N] [--token T | --users FILE]
  askseam mcp [--timeout SECONDS] [--keepalive SECONDS] [--store FILE | --postgres URL]
              [--http PORT [--host ADDRESS] [--allow-host NAME]...] [--secret S]
  askseam notify --store FILE | --postgres URL --webhook URL --secret S [options]
  askseam history --store FILE | --postgres URL [--key K] [--ask ID] [--agent ID]
                  [--limit N] [--json]
  askseam --help | --version
`

/** `askseam --help`: every command and option, for someone who installed the package. */
export const HELP = `askseam: an AI agent stops halfway through a task to ask a human.

${USAGE}
Commands:
  demo   (default) a scripted agent plans a deployment, asks you three
         questions and then submits its plan for your review; it prints
         exactly what the model receives from each call. No model, no network.
  console  one web console for every process sharing --store or --postgres
  mcp    the same agent as an MCP server on stdio, asking through
         elicitation (for a desktop assistant or any MCP client)
  notify signed webhooks (Standard Webhooks) for every ask of the store:
         pending, reminders, escalation, settled
  history  the record of the store's asks: what was asked, when, how it
         ended, who answered and from where

Options:
  --timeout SECONDS   give each ask a deadline (the model then gets ASK_TIMEOUT)
  --keepalive SECONDS mcp: while a tool call waits on you, send the client
                      progress at least this often (default 10; 0: never)
  --web               answer in the browser: starts the web console on
                      127.0.0.1 and prints its URL instead of asking here
  --framework NAME    run each ask inside a framework's real agent loop with
                      a scripted model: ai-sdk, openai-agents or langgraph
  --fresh             forget the demo's kept asks and start over
  --store FILE        keep asks in this SQLite file, shared by the processes
                      on this machine (npm install better-sqlite3)
  --postgres URL      keep asks in Postgres, shared by many hosts (npm install pg)
  --port N, --token T console: a fixed port and token, so open tabs reconnect
                      after a restart
  -h, --help          show this help (askseam COMMAND --help: that command's)
  -v, --version       print the version

Each command loads the UI it asks through, an optional peer of askseam:
  askseam demo         npm install marked zod
  askseam demo --web   npm install ws zod
  askseam mcp          npm install @modelcontextprotocol/sdk
Without installing: npx -p askseam -p marked -p zod askseam

In your own code: import { createUserQuestions } from 'askseam'
Guide: https://github.com/askseam/askseam#readme
`

/** `askseam COMMAND --help`: what that command does and the options it reads. */
export const COMMAND_HELP: Readonly<Record<string, string>> = {
  demo: `Usage: askseam [demo] [--timeout SECONDS] [--web] [--framework NAME] [--fresh]
                    [--store FILE | --postgres URL]

A scripted agent plans a deployment, asks you three questions, then submits
its plan for your review, and prints exactly what the model receives from
each call. No model, no network. Its asks are kept in a SQLite file of its
own (per user and per kind of demo): stop it mid-question and run it again,
and it resumes where it stopped.

Options:
  --timeout SECONDS   give each ask a deadline (the model then gets ASK_TIMEOUT)
  --web               answer in the browser: starts the web console on
                      127.0.0.1 and prints its URL instead of asking here
  --framework NAME    run each ask inside a framework's real agent loop with
                      a scripted model: ai-sdk, openai-agents or langgraph
  --fresh             forget the demo's kept asks and start over
  --store FILE        keep the asks in this SQLite file instead, shared with
                      other processes (npm install better-sqlite3)
  --postgres URL      keep the asks in Postgres instead (npm install pg)

Needs: npm install marked zod (with --web: npm install ws zod)
`,
  console: `Usage: askseam console --store FILE | --postgres URL [--port N] [--token T | --users FILE]

One web console for every process sharing the store: each pending ask of
every agent on it shows here, and an answer given here reaches whichever
process asked, wherever it runs. It asks nothing itself. Ctrl-C stops it and
ends no ask: the questions stay in the store for the next console.

Options:
  --store FILE        the SQLite file the agents share (npm install better-sqlite3)
  --postgres URL      the Postgres database the agents share (npm install pg)
  --port N            a fixed port (default: a free one)
  --token T           a fixed token (default: a fresh random one); with a
                      fixed port, open tabs reconnect after a restart
  --users FILE        the people who may answer, one token each, as JSON:
                      [{ "id": "ana", "name": "Ana", "roles": ["ops"],
                         "tokenSha256": "<sha256 hex of Ana's token>" }]
                      each opens the page with ?token=<their token>; every
                      answer records who gave it; no shared token is accepted

Needs: npm install ws, and the store's driver
`,
  mcp: `Usage: askseam mcp [--timeout SECONDS] [--keepalive SECONDS]
                   [--store FILE | --postgres URL] [--secret S]
                   [--http PORT [--host ADDRESS] [--allow-host NAME]...]

The demo agent as an MCP server on stdio: its plan_deployment tool asks
through the client's elicitation forms. Stdout carries only the protocol;
logs go to stderr. Clients on MCP 2025-11-25 and 2025-06-18 get
elicitation/create; clients on 2026-07-28 get multi round-trip requests.

Options:
  --timeout SECONDS   give each ask a deadline (the model then gets ASK_TIMEOUT)
  --keepalive SECONDS while the tool waits on the human, send the client a
                      progress notification at least this often, so a client
                      whose request timeout resets on progress keeps waiting
                      (default 10; 0: send none)
  --store FILE        keep asks in this SQLite file, shared with other
                      processes (npm install better-sqlite3)
  --postgres URL      keep asks in Postgres, shared by many hosts (npm install pg)
  --http PORT         serve MCP 2026-07-28 over Streamable HTTP at
                      http://127.0.0.1:PORT/mcp instead of stdio, stateless:
                      instances on one store behind a load balancer serve
                      one client
  --host ADDRESS      with --http: the address to listen on (default
                      127.0.0.1; 0.0.0.0 for every interface)
  --allow-host NAME   with --http: serve requests whose Host is NAME (the
                      load balancer's name), besides loopback names; repeat
                      for several
  --secret S          the key that seals each round's requestState, at least
                      32 bytes, the same on every instance (or set
                      ASKSEAM_MCP_SECRET; default: a random one per process)

Needs: npm install @modelcontextprotocol/sdk, and for 2026-07-28
@modelcontextprotocol/server
`,
  notify: `Usage: askseam notify --store FILE | --postgres URL --webhook URL --secret S
                      [--console-url URL] [--notify-after SECONDS]
                      [--remind-every SECONDS] [--max-reminders N]
                      [--escalate-after SECONDS] [--max-in-flight N]

Posts a signed webhook (Standard Webhooks: webhook-id, webhook-timestamp,
webhook-signature) for every ask of the store: ask.pending, ask.reminder,
ask.escalated and ask.settled. Failed deliveries are retried with backoff;
several notifiers on one store send each event once between them, and an
event not delivered when one stops is sent by another or after a restart.
Ctrl-C stops it and ends no ask.

Options:
  --store FILE              the SQLite file the agents share (npm install better-sqlite3)
  --postgres URL            the Postgres database the agents share (npm install pg)
  --webhook URL             where every event is posted (http or https, no user:password@)
  --secret S                the signing secret: whsec_ followed by base64
  --console-url URL         each event links to URL#ask=ID
  --notify-after SECONDS    wait this long before ask.pending (default 0)
  --remind-every SECONDS    send ask.reminder this often while an ask waits
  --max-reminders N         at most N reminders per ask (default 3)
  --escalate-after SECONDS  send one ask.escalated once an ask waited this long
  --max-in-flight N         at most N webhooks on their way at once (default 16)
`,
  history: `Usage: askseam history --store FILE | --postgres URL [--key K] [--ask ID]
                       [--agent ID] [--limit N] [--json]

Prints the record of the store's asks, newest first: each ask's id, when it
was asked, its questions in short, how it ended, who answered and from where
(the web console, a terminal, an MCP client), and what happened to it
(admitted, presented, votes, refusals, settled, notified). An ask no record
matches prints an empty result, and the command still succeeds.

Options:
  --store FILE        the SQLite file the agents share (npm install better-sqlite3)
  --postgres URL      the Postgres database the agents share (npm install pg)
  --key K             only the ask with this key (e.g. a tool-call id)
  --ask ID            only the ask with this id
  --agent ID          only the asks of this agent
  --limit N           at most N asks, 1 to 1000 (default 50)
  --json              print the AskHistory[] array as JSON, for a script
`,
}
