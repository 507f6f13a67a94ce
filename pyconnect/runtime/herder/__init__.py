"""The herder: Connect's requests (REST and files) carried out on the worker, and the checks a config passes."""
