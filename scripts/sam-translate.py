"""Print the CloudFormation that SAM makes of template.yaml (AWS::Serverless::* expanded), so the
template scanner also checks the roles, permissions, stage and event source mappings SAM generates.

Runs offline with SAM's own translator (samtranslator, installed with aws-sam-cli): the local
CodeUri (the checkout, `.`, in Globals) stands in as an S3 object, the region is us-east-1 unless
AWS_DEFAULT_REGION says otherwise.
Usage: .venv/bin/python scripts/sam-translate.py template.yaml > .local/template.json
"""

import json
import os
import re
import sys

from samtranslator.translator.transform import transform
from samtranslator.yaml_helper import yaml_parse


class NoManagedPolicies:
    """The translator asks for managed policy ARNs by name only for names it does not know."""

    def load(self, _names):
        return {}


def main(path):
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    text = open(path).read()
    # `sam build` packages each function's bootstrap; the translator only needs an S3 location.
    text = re.sub(r"(?m)^(\s+)CodeUri: \.$", r"\1CodeUri: s3://artifacts/function.zip", text)
    json.dump(transform(yaml_parse(text), {}, NoManagedPolicies()), sys.stdout, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
