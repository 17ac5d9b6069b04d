/**
 * src/tui: the full-screen face (Ink and React). ./run.tsx starts it and draws the first frame
 * (./BootFrame.tsx) with Ink alone, then loads ./session.tsx (the services and the app: the API
 * client, the history database, the panes) and hands over; ./App.tsx and ./Shell.tsx lay it out; panes in ./panes/, multi-step flows (setup, top-up, rotation) in
 * ./flows/, every profile's account at once (the Accounts pane `0`, the app started again on
 * another profile, `monitor --all-profiles`) in ./accounts/, shared state in ./contexts/ (session, balance, keys, usage, status), hooks in
 * ./hooks/, widgets in ./components/, keyboard in ./input/ and ./keymap.ts (the one table of
 * keys, read by the help overlay and the manual's drift test), text formatting in ./format.ts.
 * It talks to the service only through src/api and writes outside text only through
 * src/terminal's sanitiser.
 *
 * May import: everything below the faces (watcher, operations, api, billing, config, credentials,
 * delivery, terminal) and src/sandbox (the embedded sandbox of `keydeck --sandbox`, imported lazily).
 * Imported by: src/cli only (nothing else imports the TUI; the house test enforces it).
 */
export {};
