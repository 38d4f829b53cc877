"""The appliance: camera sources, the table session, the web page, storage, the CLI."""
