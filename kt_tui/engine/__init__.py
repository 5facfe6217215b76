"""The session engine (core.py): runs a strategy's gates, measures through gpu/, stores everything
in store/ first and replays it on resume; plus the strategies and the parts they share. No Textual."""
