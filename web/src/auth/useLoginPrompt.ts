/** A tool used while logged out opens the in-page login/register dialog (see LoginPromptDialog.tsx). */
export { useLoginPrompt } from "./LoginPromptDialog.tsx";
