#!/usr/bin/python3
# A LAVA job definition (YAML on standard input) against LAVA's own job
# schema, as lava-server checks a submission: lava_common.schemas.validate
# (Debian's lava-common, strict, the job and each action's schema), and the
# server's submission schema too when lava_scheduler_app can be imported
# (PYTHONPATH). Prints "valid", or why not; exit 0 valid, 1 invalid, 2 when
# the validator cannot run here (lava-common or python3-voluptuous missing).
import sys

try:
    import yaml
    import voluptuous
    from lava_common.schemas import validate
except ImportError as e:
    print("cannot validate here: %s (apt-get install lava-common)" % e)
    sys.exit(2)


def server_schema(data):
    """lava-server's own check of a submission, when its source is at hand."""
    try:
        from django.conf import settings
        if not settings.configured:
            settings.configure(EXTRA_CONTEXT_VARIABLES=[])
        from lava_scheduler_app.schema import validate_submission
    except ImportError:
        return
    validate_submission(data)


def main():
    try:
        # lava-server reads a submission with yaml's SafeLoader.
        data = yaml.load(sys.stdin.buffer.read(), Loader=yaml.SafeLoader)
        validate(data, strict=True)
        server_schema(data)
    except (yaml.YAMLError, voluptuous.Invalid) as e:
        print("invalid: %s" % str(e).replace("\n", " "))
        return 1
    except Exception as e:  # the server schema's SubmissionException
        print("invalid: %s: %s" % (type(e).__name__, str(e).replace("\n", " ")))
        return 1
    print("valid")
    return 0


sys.exit(main())
