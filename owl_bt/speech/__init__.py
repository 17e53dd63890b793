"""Spoken goals (docs/usage.md, "Spoken goals"): WAV files and the microphone,
recognised offline by pocketsphinx under a grammar built from the scene, or by an OpenAI-compatible
transcription endpoint."""
